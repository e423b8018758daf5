//! The public surface of the packaged C# assembly (`scripts/build-csharp.sh`: `Verify.dll`
//! and its XML documentation), read back by reflection on Mono (`tests/csharp/CsharpSurface.cs`):
//!
//! - every public or protected method and constructor has a `<param>` for each parameter;
//! - every one whose IL throws `ArgumentException` (or a subclass) or `VerifyException` (or a
//!   subclass), itself or through the assembly's methods it calls, names it (or a base class)
//!   in an `<exception cref>`: a callee's argument checks count when the call passes the
//!   member's own arguments; what a `Task` throws later (a delegate's body) is not followed;
//! - every position of reference type (return, parameter, property, field, event) has the
//!   nullability Roslyn reads from `NullableAttribute` / `NullableContextAttribute`, explicit
//!   or from its method or type: none is oblivious; the members documented as possibly null
//!   carry 2 and the rest 1; inside a type (type arguments, array elements, in the order of
//!   the byte[] form of `NullableAttribute`), every position reads 1;
//! - the single-file drop-in `Verify.cs` carries none of those attributes (Roslyn refuses them
//!   in source, CS8335) and still compiles.
//!
//! The reader itself is checked first on a small assembly with one of each fault.
//! Needs `mcs` and `mono` (`scripts/install-deps.sh mono mono-devel`).

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::host::{compile_csharp, csharp_assembly, require_mono, root, run_mono, text, Scratch};

/// Compiles the reader into `scratch` and runs it on `dll` with its XML documentation `xml`;
/// returns its lines.
fn read_surface(scratch: &Scratch, dll: &Path, xml: &Path) -> Vec<String> {
    let exe = scratch.0.join("CsharpSurface.exe");
    if !exe.exists() {
        compile_csharp(&[PathBuf::from("tests/csharp/CsharpSurface.cs")], &exe);
    }
    let output = run_mono(&exe, &[dll, xml]);
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "the surface reader failed\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
    );
    stdout.lines().map(str::to_owned).collect()
}

/// The lines of one kind, without the kind.
fn of_kind<'a>(lines: &'a [String], kind: &str) -> Vec<&'a str> {
    let prefix = format!("{kind} ");
    lines
        .iter()
        .filter_map(|line| line.strip_prefix(prefix.as_str()))
        .collect()
}

/// Position → nullability flag (several overloads of one name: the largest flag, so that one
/// overload's `2` is seen; every flag is checked to be 1 or 2 anyway).
fn nullability(lines: &[String]) -> BTreeMap<String, u8> {
    let mut map = BTreeMap::new();
    for line in of_kind(lines, "NULLABLE") {
        let (position, flag) = line.rsplit_once(' ').expect("a position and a flag");
        let flag: u8 = flag.parse().expect("a flag");
        let entry = map.entry(position.to_owned()).or_insert(flag);
        *entry = (*entry).max(flag);
    }
    map
}

/// A fixture with one fault of each kind, compiled with `mcs -doc`.
const FIXTURE: &str = r#"using System;
using System.Runtime.CompilerServices;

namespace System.Runtime.CompilerServices
{
    internal sealed class NullableAttribute : Attribute
    {
        public NullableAttribute(byte value) { }
        public NullableAttribute(byte[] value) { }
    }
    internal sealed class NullableContextAttribute : Attribute
    {
        public NullableContextAttribute(byte value) { }
    }
}

namespace Fixture
{
    /// <summary>Annotated.</summary>
    [NullableContext(1)]
    public sealed class Annotated
    {
        /// <summary>Documents one parameter of two.</summary>
        /// <param name="first">Documented.</param>
        public void TwoParameters(string first, [Nullable(2)] string second) { }

        /// <summary>May be null, and so may its argument (one byte: every position).</summary>
        [Nullable(2)]
        public Action<string> AllNullable { get; set; }

        /// <summary>May be null; its argument not.</summary>
        [Nullable(new byte[] { 2, 1 })]
        public Action<string> OnlyOuter { get; set; }

        /// <summary>A generic value type inside takes a byte (0), a non-generic one none.</summary>
        [Nullable(new byte[] { 2, 0, 1, 1 })]
        public System.Collections.Generic.IEnumerable<System.Collections.Generic.KeyValuePair<string, string>> Pairs { get; set; }

        /// <summary>A byte[] of the wrong length: Roslyn ignores it.</summary>
        [Nullable(new byte[] { 2, 1 })]
        public Func<int, string, string> WrongLength { get; set; }

        /// <summary>Throws without saying so.</summary>
        public void Throws(string value)
        {
            Check(value);
        }

        /// <summary>Throws and says so.</summary>
        /// <param name="value">A value.</param>
        /// <exception cref="ArgumentException">Always.</exception>
        public void ThrowsDocumented(string value)
        {
            Check(value);
        }

        /// <summary>Calls a checker with a constant only.</summary>
        public void CallsWithConstant()
        {
            Check("constant");
        }

        private static void Check(string value)
        {
            throw new ArgumentNullException("value");
        }
    }

    /// <summary>Without a nullable context.</summary>
    public sealed class Oblivious
    {
        /// <summary>Oblivious.</summary>
        public string Text { get; set; }
    }
}
"#;

/// The reader finds what it looks for: a missing `<param>`, an undocumented throw through a
/// private callee (not one reached only with a constant), an oblivious position, an explicit
/// `Nullable(2)`, and in a generic type what a single byte, a byte per position (a generic
/// value type inside taking one, an `int` none) and a byte[] of the wrong length say.
#[test]
fn the_surface_reader_finds_each_fault_in_a_fixture() {
    require_mono();
    let scratch = Scratch::new();
    let source = scratch.0.join("Fixture.cs");
    std::fs::write(&source, FIXTURE).expect("write the fixture");
    let dll = scratch.0.join("Fixture.dll");
    let xml = scratch.0.join("Fixture.xml");
    let output = Command::new("mcs")
        .arg("-target:library")
        .arg(format!("-out:{}", dll.display()))
        .arg(format!("-doc:{}", xml.display()))
        .arg(&source)
        .output()
        .expect("run mcs");
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "mcs failed\n{stdout}{stderr}");
    let lines = read_surface(&scratch, &dll, &xml);
    let report = lines.join("\n");
    for expected in [
        "NOPARAM M:Fixture.Annotated.TwoParameters(System.String,System.String) second",
        "NOPARAM M:Fixture.Annotated.Throws(System.String) value",
        "NOEXCEPTION M:Fixture.Annotated.Throws(System.String) System.ArgumentNullException",
        "NULLABLE Fixture.Annotated.TwoParameters(first) 1",
        "NULLABLE Fixture.Annotated.TwoParameters(second) 2",
        "NULLABLE Fixture.Oblivious.Text 0",
        "NULLABLE Fixture.Annotated.AllNullable 2",
        "NESTED Fixture.Annotated.AllNullable 2",
        "NULLABLE Fixture.Annotated.OnlyOuter 2",
        "NESTED Fixture.Annotated.OnlyOuter 1",
        "NULLABLE Fixture.Annotated.Pairs 2",
        "NESTED Fixture.Annotated.Pairs 1,1",
        "NULLABLE Fixture.Annotated.WrongLength 0",
        "NESTED Fixture.Annotated.WrongLength 0,0",
    ] {
        assert!(
            lines.iter().any(|line| line == expected),
            "the reader should report `{expected}`:\n{report}"
        );
    }
    for unexpected in [
        "NOEXCEPTION M:Fixture.Annotated.ThrowsDocumented",
        "NOEXCEPTION M:Fixture.Annotated.CallsWithConstant",
        "NOPARAM M:Fixture.Annotated.TwoParameters(System.String,System.String) first",
    ] {
        assert!(
            !lines.iter().any(|line| line.starts_with(unexpected)),
            "the reader should not report `{unexpected}`:\n{report}"
        );
    }
}

/// Every public method and constructor of `Verify.dll` documents each parameter and each
/// exception its code throws (see the top of this file for what is followed).
#[test]
fn every_public_csharp_member_documents_its_parameters_and_throws() {
    let assembly = csharp_assembly();
    let scratch = Scratch::new();
    let lines = read_surface(
        &scratch,
        &assembly.join("Verify.dll"),
        &assembly.join("Verify.xml"),
    );
    let members = of_kind(&lines, "MEMBER");
    for member in [
        "M:Verify.Client.SingleLogin(System.String,System.String,System.String)",
        "M:Verify.Client.#ctor(System.String,System.String,System.String,Verify.ClientOptions)",
        "M:Verify.Reply.GetString(System.String)",
        "P:Verify.CardLoginReply.Token",
    ] {
        assert!(
            members.contains(&member),
            "the reader did not see {member}; it saw {} members",
            members.len()
        );
    }
    let faults: Vec<&String> = lines
        .iter()
        .filter(|line| {
            line.starts_with("NODOC ")
                || line.starts_with("NOPARAM ")
                || line.starts_with("NOEXCEPTION ")
        })
        .collect();
    assert!(
        faults.is_empty(),
        "undocumented parameters or exceptions (the generated members: codegen/src/lang/csharp/, \
         then `cargo run -p verify-codegen`):\n{}",
        faults
            .iter()
            .map(|line| line.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Positions documented as possibly null ("or null", "null when absent", "null: the
/// defaults"), which must carry 2.
const MAY_BE_NULL: &[&str] = &[
    // Typed reply fields the server may leave out (generated).
    "Verify.CardLoginReply.Token",
    "Verify.UserSessionReply.Token",
    "Verify.HeartbeatReply.Msg",
    "Verify.VariablesReply.Variables",
    // The raw reply.
    "Verify.Reply.Remark",
    "Verify.Reply.Offline",
    "Verify.Reply.GetString:return",
    "Verify.Reply.GetJson:return",
    "Verify.Reply.GetStringMap:return",
    "Verify.Reply.GetJson(pointer)",
    // Errors.
    "Verify.VerifyException.ReplyJson",
    "Verify.VerifyRefusedException.Remark",
    // Keeper events and snapshots.
    "Verify.KeeperEventArgs.Remark",
    "Verify.KeeperEventArgs.ExpireAtText",
    "Verify.KeeperEventArgs.MessageText",
    "Verify.KeeperStatus.Remark",
    "Verify.KeeperStatus.ExpireAtText",
    "Verify.Keeper.Handle",
    // Options left unset.
    "Verify.ClientOptions.StateFolder",
    "Verify.ClientOptions.ProxyUrl",
    "Verify.ClientOptions.OnLog",
    "Verify.KeeperOptions.Ip",
    "Verify.MachineCheck.Note",
    // Parameters that take null.
    "Verify.Client..ctor(options)",
    "Verify.Client.SingleLogin(deviceName)",
    "Verify.Client.UserLogin(mac)",
    "Verify.Client.SingleLoginAsync(deviceName)",
    "Verify.Client.Call(parameters)",
    "Verify.Client.SocialLoginWait(mac)",
    "Verify.Client.SocialLoginWait(cancel)",
    "Verify.Client.StartKeeper(options)",
    "Verify.Keeper..ctor(options)",
    "Verify.Library.UserMessage(language)",
    "Verify.Library.MachineCode(stateFolder)",
    "Verify.Library.Diagnose(options)",
    "Verify.Library.DiagnoseAsync(options)",
    "Verify.Client.Diagnose(onStep)",
    "Verify.Client.DiagnoseAsync(onStep)",
    "Verify.ServiceTime.Parse(text)",
];

/// Positions that are never null, which must carry 1.
const NOT_NULL: &[&str] = &[
    "Verify.Client.SingleLogin:return",
    "Verify.Client.SingleLogin(card)",
    "Verify.Client.SingleLogin(mac)",
    "Verify.Client.SingleLoginAsync:return",
    "Verify.Client..ctor(baseUrl)",
    "Verify.Client.StartKeeper:return",
    "Verify.Reply.Message",
    "Verify.Reply.Json",
    "Verify.Reply.GetString(pointer)",
    "Verify.VerifyRefusedException.ServerMessage",
    "Verify.KeeperEventArgs.Message",
    "Verify.KeeperStatus.Messages",
    "Verify.Library.MachineCode:return",
    "Verify.Library.Version",
    "Verify.ClientOptions.Mirrors",
    "Verify.Keeper.Completion",
];

/// Every position of reference type in `Verify.dll` carries a nullability a C# 8+ compiler
/// reads (none oblivious), the known ones carry the right one, and no type argument or array
/// element is nullable or oblivious.
#[test]
fn every_public_csharp_reference_type_has_its_nullability() {
    let assembly = csharp_assembly();
    let scratch = Scratch::new();
    let lines = read_surface(
        &scratch,
        &assembly.join("Verify.dll"),
        &assembly.join("Verify.xml"),
    );
    let flags = nullability(&lines);
    assert!(
        flags.len() > 300,
        "the reader saw only {} positions of reference type",
        flags.len()
    );
    let oblivious: Vec<&String> = flags
        .iter()
        .filter(|(_, flag)| **flag == 0)
        .map(|(position, _)| position)
        .collect();
    assert!(
        oblivious.is_empty(),
        "positions without a nullability (add [NullableContext(1)] to the type, [Nullable(2)] \
         where null is allowed):\n{oblivious:#?}"
    );
    // No type argument or array element of the binding may be null (a dictionary's values,
    // a handler's arguments, a task's result): `[Nullable(2)]` on `Action<LogLevel, string>`
    // would say `Action<LogLevel, string?>?`; it needs `new byte[] { 2, 1 }`.
    let nested: Vec<&str> = of_kind(&lines, "NESTED")
        .into_iter()
        .filter(|line| {
            let (_, flags) = line.rsplit_once(' ').expect("a position and its flags");
            flags.split(',').any(|flag| flag != "1")
        })
        .collect();
    assert!(
        nested.is_empty(),
        "type arguments or array elements that are not `1` (not null), Roslyn's order:\n{nested:#?}"
    );
    assert!(
        of_kind(&lines, "NESTED").contains(&"Verify.ClientOptions.OnLog 1"),
        "the reader sees the handler's string"
    );
    for (list, flag) in [(MAY_BE_NULL, 2u8), (NOT_NULL, 1u8)] {
        for position in list {
            assert_eq!(
                flags.get(*position),
                Some(&flag),
                "{position} should carry {flag} (1 not null, 2 may be null)"
            );
        }
    }
}

/// The drop-in `Verify.cs` has no nullability attribute (Roslyn refuses them in source,
/// CS8335) and compiles on its own.
#[test]
fn the_csharp_drop_in_has_no_nullability_attributes_and_compiles() {
    require_mono();
    let scratch = Scratch::new();
    let output = Command::new(root().join("scripts/build-csharp.sh"))
        .args(["--drop-in-only", "--out"])
        .arg(&scratch.0)
        .current_dir(root())
        .output()
        .expect("run scripts/build-csharp.sh");
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}{stderr}");
    let drop_in = scratch.0.join("Verify.cs");
    let source = std::fs::read_to_string(&drop_in).expect("read the drop-in");
    for attribute in ["[Nullable", "[return: Nullable", "NullableAttribute"] {
        assert!(
            !source.contains(attribute),
            "the drop-in still has {attribute}"
        );
    }
    let dll = scratch.0.join("DropIn.dll");
    let output = Command::new("mcs")
        .args(["-sdk:4.7", "-target:library", "-warnaserror"])
        .arg(format!("-out:{}", dll.display()))
        .arg(&drop_in)
        .output()
        .expect("run mcs");
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "the drop-in does not compile\n{stdout}{stderr}"
    );
}
