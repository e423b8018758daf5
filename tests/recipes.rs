//! CONTRIBUTING.md's recipes marked "tested" stay true: in a copy of the tree (the files git
//! tracks), one fake entry per recipe is added in the files the recipe names and nowhere
//! else, the generator runs there (`cargo run -p verify-codegen`), and what it generated
//! builds: the sandbox (for its fault), the C ABI (`cargo check -p verify --lib`, into this run's target folder, so that
//! only the copied crates compile), the C++ headers (`-Wall -Wextra -Werror`), the C#
//! binding (`mcs -warnaserror`) and the Python package (byte-compiled). Each fake entry is
//! then found where the recipe says it lands. All recipes share the one copy and build, to
//! keep the test's cost to one build of the copied crates: the copy's packages get a version
//! (and the generator's binary a name) of their own, so that they build beside this tree's in
//! one target folder, sharing every dependency and overwriting none of this tree's files
//! (the C ABI is checked, `cargo check`, not linked: its dependencies' check artifacts are
//! those of the test command's clippy run).
//!
//! Needs git, a C++ compiler, `mcs` (`scripts/install-deps.sh mono mono-devel`) and python3.

#[path = "common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;

use common::host::{
    require_mono, require_tool, root, show, target_dir, without_test_env, Scratch, CXX_STRICT_FLAGS,
};

/// Replaces the one place `anchor` in `path` (from the copy's root) with `anchor` followed
/// (or preceded, when `before`) by `added`; fails when the anchor is not there once, which
/// means the recipe's file changed shape and the recipe needs reading again.
fn add(copy: &Path, path: &str, anchor: &str, added: &str, before: bool) {
    let file = copy.join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        text.matches(anchor).count(),
        1,
        "{path}: the recipe's anchor {anchor:?} is not there exactly once"
    );
    let replaced = if before {
        format!("{added}{anchor}")
    } else {
        format!("{anchor}{added}")
    };
    std::fs::write(&file, text.replacen(anchor, &replaced, 1))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
}

/// Runs `command` in the copy with this run's target folder; panics with its output unless
/// it succeeds.
fn run(copy: &Path, command: &mut Command, what: &str) {
    let output = without_test_env(command)
        .current_dir(copy)
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(output.status.success(), "{what} failed\n{}", show(&output));
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

fn contains(copy: &Path, path: &str, wanted: &str) {
    let text = std::fs::read_to_string(copy.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        text.contains(wanted),
        "{path} does not have {wanted:?}: the recipe is not true any more"
    );
}

/// The files git tracks, copied to `copy`.
fn copy_tree(copy: &Path) {
    require_tool("git", "git");
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output()
        .expect("git ls-files runs");
    assert!(listed.status.success(), "git ls-files\n{}", show(&listed));
    for name in listed.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        let from = root().join(&name);
        if !from.is_file() {
            continue;
        }
        let to = copy.join(&name);
        std::fs::create_dir_all(to.parent().expect("a file's folder")).expect("a folder");
        std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("copy {name}: {e}"));
    }
}

/// Gives the copy's packages a version of their own and the generator's binary another name:
/// cargo names a workspace package's artifacts by its name, version and place in the
/// workspace, so without this the copy's would overwrite this tree's in the shared target
/// folder (and a later build here would link the copy's fake entries).
fn own_identity(copy: &Path) {
    for manifest in [
        "Cargo.toml",
        "core/Cargo.toml",
        "codegen/Cargo.toml",
        "machine-sys/Cargo.toml",
        "sandbox/Cargo.toml",
        "doctor/Cargo.toml",
    ] {
        let file = copy.join(manifest);
        let text = std::fs::read_to_string(&file).expect("a manifest");
        assert_eq!(
            text.matches("\nversion = \"0.2.0\"\n").count(),
            1,
            "{manifest}: the package's version line"
        );
        std::fs::write(
            &file,
            text.replacen("\nversion = \"0.2.0\"\n", "\nversion = \"0.2.999\"\n", 1),
        )
        .expect("write a manifest");
    }
    let manifest = copy.join("codegen/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("codegen/Cargo.toml");
    std::fs::write(
        &manifest,
        text.replace(
            "[[bin]]\nname = \"verify-codegen\"",
            "[[bin]]\nname = \"verify-codegen-recipes\"",
        ),
    )
    .expect("write codegen/Cargo.toml");
}

#[test]
fn the_tested_recipes_of_contributing_hold() {
    require_mono();
    require_tool("c++", "gcc");
    require_tool("python3", "python3");
    let scratch = Scratch::new();
    let copy = scratch.0.join("tree");
    copy_tree(&copy);
    own_identity(&copy);

    // "Adding an action": one entry in the action table.
    add(
        &copy,
        "core/src/actions/table.rs",
        "    get_bulletin: \"GetBulletin\", read_only, other, Bulletin {}\n",
        "    /// `RecipeProbe`: a recipe's fake action.\n    \
         recipe_probe: \"RecipeProbe\", read_only, other, Bulletin {\n        \
         name: required \"Name\",\n    }\n",
        false,
    );
    // "Adding a doctor step": its row in the doctor's table (its kind; the step's own code
    // is not faked here): `StepKind`, `VERIFY_STEP_*` and every binding's enum come from it.
    add(
        &copy,
        "core/src/diagnose/table.rs",
        "        Machine = 9, \"machine\", \"Machine code v2's check (outcome and components, never a value).\";\n",
        "        RecipeProbe = 10, \"recipe_probe\", \"A recipe's fake step.\";\n",
        false,
    );
    // "Adding an enum value": a member of an enum the core does not number.
    add(
        &copy,
        "codegen/src/schema/enums.rs",
        "                 social login.\",\n            ),\n",
        "            member(\"RECIPE_PROBE\", 3, \"A recipe's fake session.\"),\n",
        false,
    );
    // "Adding a sandbox fault": its kind and name, and what it does to a reply.
    add(
        &copy,
        "sandbox/src/store/faults.rs",
        "    CaptivePortal,\n",
        "    /// A recipe's fake fault.\n    RecipeProbe,\n",
        false,
    );
    add(
        &copy,
        "sandbox/src/store/faults.rs",
        "            FaultKind::CaptivePortal => \"captive_portal\",\n",
        "            FaultKind::RecipeProbe => \"recipe_probe\",\n",
        false,
    );
    add(
        &copy,
        "sandbox/src/service/faults.rs",
        "        FaultKind::CaptivePortal => (200, true, CAPTIVE_PORTAL_PAGE.as_bytes()),\n",
        "        FaultKind::RecipeProbe => (200, false, b\"a recipe's probe\"),\n",
        false,
    );
    // "Adding a host language": one generator module and its line in `lang/mod.rs`.
    std::fs::write(
        copy.join("codegen/src/lang/recipe_probe.rs"),
        "//! A recipe's fake host language: every export and every enum member, one a line.\n\n\
         use crate::schema::Schema;\nuse crate::Output;\n\n\
         /// The language's one file.\npub fn files(schema: &Schema) -> Vec<Output> {\n    \
         let mut text = String::new();\n    for export in &schema.exports {\n        \
         let params: Vec<String> = export\n            .params\n            .iter()\n            \
         .map(|p| format!(\"{} {} {:?}{}\", p.ty.c(), p.name, p.kind, if p.optional { \" optional\" } else { \"\" }))\n            .collect();\n        \
         text.push_str(&format!(\"{}({})\\n\", export.name, params.join(\", \")));\n    }\n    \
         for spec in schema.enums {\n        for member in spec.members {\n            \
         text.push_str(&format!(\"{} = {}\\n\", spec.c_name(member), member.value));\n        }\n    }\n    \
         vec![Output::file(\"bindings/recipe-probe/declarations.txt\", text)]\n}\n",
    )
    .expect("write the fake language");
    add(
        &copy,
        "codegen/src/lang/mod.rs",
        "pub mod python;\n",
        "pub mod recipe_probe;\n",
        false,
    );
    add(
        &copy,
        "codegen/src/lang/mod.rs",
        "    Ok(outputs)\n}",
        "    outputs.extend(recipe_probe::files(&schema));\n",
        true,
    );

    // The copy's generator: it writes, then finds nothing stale.
    let generator = [
        "run",
        "--quiet",
        "-p",
        "verify-codegen",
        "--bin",
        "verify-codegen-recipes",
    ];
    run(
        &copy,
        cargo().args(generator),
        "cargo run -p verify-codegen (the copy)",
    );
    run(
        &copy,
        cargo().args(generator).args(["--", "--check"]),
        "cargo run -p verify-codegen -- --check after writing (the copy)",
    );
    // `check`, not `build`: a build would put the copy's libverify.so where the other tests
    // load the library under test from.
    run(
        &copy,
        cargo().args([
            "check",
            "--quiet",
            "-p",
            "verify",
            "-p",
            "verify-sandbox",
            "--lib",
        ]),
        "cargo check -p verify -p verify-sandbox --lib (the copy)",
    );
    let mut cxx = Command::new("c++");
    cxx.args(CXX_STRICT_FLAGS)
        .args(["-fsyntax-only", "-x", "c++", "include/verify.hpp"]);
    run(&copy, &mut cxx, "the C++ headers (the copy)");
    let mut sources: Vec<String> = Vec::new();
    let mut folders = vec![copy.join("bindings/csharp/src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a C# folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "cs") {
                sources.push(path.display().to_string());
            }
        }
    }
    let mut mcs = Command::new("mcs");
    mcs.args(["-sdk:4.7", "-target:library", "-warnaserror"])
        .arg(format!("-out:{}", scratch.0.join("Verify.dll").display()))
        .args(&sources);
    run(&copy, &mut mcs, "mcs (the copy's C# binding)");
    let mut python = Command::new("python3");
    python.args(["-m", "compileall", "-q", "bindings/python/src/verify"]);
    run(
        &copy,
        &mut python,
        "python3 -m compileall (the copy's package)",
    );

    // Each fake entry is where its recipe says it lands.
    contains(&copy, "include/verify.h", "verify_recipe_probe(");
    contains(
        &copy,
        "include/verify.h",
        "#define VERIFY_STEP_RECIPE_PROBE 10",
    );
    contains(&copy, "include/verify/actions.hpp", "recipe_probe(");
    contains(
        &copy,
        "src/generated/enums.rs",
        "verify_core::diagnose::StepKind::RecipeProbe.number() == VERIFY_STEP_RECIPE_PROBE",
    );
    contains(
        &copy,
        "include/verify/enums.hpp",
        "RecipeProbe = VERIFY_STEP_RECIPE_PROBE",
    );
    contains(
        &copy,
        "include/verify.h",
        "#define VERIFY_SESSION_RECIPE_PROBE 3",
    );
    contains(
        &copy,
        "bindings/csharp/src/Generated/NativeMethods.g.cs",
        "verify_recipe_probe(",
    );
    contains(
        &copy,
        "bindings/csharp/src/Generated/Client.Actions.g.cs",
        "RecipeProbe(",
    );
    contains(
        &copy,
        "bindings/csharp/src/Generated/DiagnosisStepKind.g.cs",
        "RecipeProbe = 10",
    );
    contains(
        &copy,
        "bindings/python/src/verify/_generated/native.py",
        "lib.verify_recipe_probe.argtypes",
    );
    contains(
        &copy,
        "bindings/python/src/verify/_generated/actions.py",
        "def recipe_probe(",
    );
    contains(
        &copy,
        "bindings/python/src/verify/_generated/enums.py",
        "RECIPE_PROBE = 10",
    );
    contains(&copy, "README.md", "`verify_recipe_probe`");
    contains(
        &copy,
        "bindings/recipe-probe/declarations.txt",
        "verify_recipe_probe(const verify_client * client Handle(\"verify_client\"), \
         const char * name Str, verify_reply ** out OutHandle(\"verify_reply\"))",
    );
    contains(
        &copy,
        "bindings/recipe-probe/declarations.txt",
        "VERIFY_STEP_RECIPE_PROBE = 10",
    );
    contains(
        &copy,
        "bindings/recipe-probe/declarations.txt",
        "verify_client_new_with_options(const char * base_url Str, const char * app_id Str, \
         const char * app_key Str, const verify_client_options * options \
         Handle(\"verify_client_options\") optional, verify_client ** out \
         OutHandle(\"verify_client\"))",
    );
}
