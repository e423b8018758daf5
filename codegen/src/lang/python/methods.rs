//! `actions.py`: the actions of the table as methods, twice: `Actions` (blocking, the base of
//! `verify.Client`) and `AsyncActions` (coroutines, the base of `verify.AsyncClient`), each
//! returning its typed result (`Optional` of it for an action that may answer 201, pending).
//! A machine code parameter (`mac`, `new_mac` in the table) is `machine_code`
//! (`new_machine_code`) and defaults to the client's; the blocking methods still take the
//! previous release's keyword with a `DeprecationWarning`.

use verify_core::actions::{ActionSpec, ParamKind};

use crate::schema::Schema;
use crate::text::doc_lines;

/// The table's names of machine code parameters, and their Python names.
const MACHINE_CODES: &[(&str, &str)] = &[("mac", "machine_code"), ("new_mac", "new_machine_code")];

/// The Python name of a parameter, and whether it is a machine code.
fn python_param(name: &str) -> (&str, bool) {
    MACHINE_CODES
        .iter()
        .find(|(table, _)| *table == name)
        .map_or((name, false), |(_, python)| (python, true))
}

/// Whether parameter `index` and all after it may be left out in Python (optional strings,
/// and machine codes, which default to the client's).
fn defaultable(action: &ActionSpec, index: usize) -> bool {
    action.params[index..]
        .iter()
        .all(|p| p.kind == ParamKind::Optional || python_param(p.name).1)
}

/// The Python parameters of an action, and the arguments of its native call.
fn params(action: &ActionSpec) -> (Vec<String>, Vec<String>) {
    let mut signature = Vec::new();
    let mut native = Vec::new();
    for (index, param) in action.params.iter().enumerate() {
        let (name, machine_code) = python_param(param.name);
        let default = if defaultable(action, index) {
            " = None"
        } else {
            ""
        };
        if machine_code {
            signature.push(format!("{name}: Optional[str]{default}"));
            native.push(format!("self._machine({name}, \"{name}\")"));
            continue;
        }
        match param.kind {
            ParamKind::Required => {
                signature.push(format!("{name}: str"));
                native.push(format!("_native.arg({name}, \"{name}\")"));
            }
            ParamKind::Session => {
                signature.push(format!("{name}: SessionKind"));
                native.push(format!("int({name})"));
            }
            ParamKind::Optional => {
                signature.push(format!("{name}: Optional[str]{default}"));
                native.push(format!("_native.optional_arg({name}, \"{name}\")"));
            }
        }
    }
    (signature, native)
}

/// An action's docstring: the table's words, with the Python names of its parameters.
fn docstring(action: &ActionSpec, fields: &str) -> String {
    let lines: Vec<&str> = doc_lines(action.doc)
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect();
    let mut text = lines.join("\n        ");
    for (table, python) in MACHINE_CODES {
        text = text.replace(&format!("`{table}`"), &format!("`{python}`"));
    }
    let text = super::doc(&text);
    let mut out = format!("\"\"\"{text}\n\n");
    for param in action.params {
        let (name, machine_code) = python_param(param.name);
        if machine_code {
            let none = if param.kind == ParamKind::Optional {
                " (``\"\"`` sends none)"
            } else {
                ""
            };
            out.push_str(&format!(
                "        ``{name}`` is the client's :attr:`~verify.Client.machine_code` (this \
                 machine's) when\n        None{none}.\n"
            ));
        }
    }
    if action.params.iter().any(|param| python_param(param.name).1) {
        out.push('\n');
    }
    let result = if action.pending {
        format!(
            "        Returns a :class:`{0}` ({fields}), or None while pending (code 201).\n",
            action.reply
        )
    } else {
        format!("        Returns a :class:`{0}` ({fields}).\n", action.reply)
    };
    out.push_str(&result);
    out.push_str("        \"\"\"\n");
    out
}

/// `actions.py`.
pub fn methods(schema: &Schema, head: &str) -> String {
    let imports: Vec<&str> = schema.replies.iter().map(|reply| reply.name).collect();
    let mut out = format!(
        "{head}\"\"\"The actions of the service as methods: blocking in :class:`Actions` (the \
         base of\n:class:`verify.Client`), coroutines in :class:`AsyncActions` (the base of \
         :class:`verify.AsyncClient`),\neach returning its typed result.\"\"\"\n\nfrom \
         __future__ import annotations\n\nfrom typing import Optional\n\nfrom .. import \
         _native\nfrom .._base import ClientBase\nfrom .._deprecated import renamed\nfrom \
         .._enums import SessionKind\nfrom .codes import Code\nfrom .results import (\n"
    );
    for name in &imports {
        out.push_str(&format!("    {name},\n"));
    }
    out.push_str(")\n");
    for (class, coroutine) in [("Actions", false), ("AsyncActions", true)] {
        let what = if coroutine {
            "as coroutines: each runs its blocking call on the event loop's\n    default \
             executor (the GIL is released during it; cancelling the task cancels the\n    \
             call in flight) and"
        } else {
            "blocking: each"
        };
        out.push_str(&format!(
            "\n\nclass {class}(ClientBase):\n    \"\"\"The actions of the action table, {what} \
             raises :class:`verify.Refused`\n    (or a narrower class) when the server refuses, \
             another :class:`verify.VerifyError` when the call\n    fails locally.\n    \
             \"\"\"\n"
        ));
        for action in schema.actions {
            out.push_str(&method(action, coroutine));
        }
    }
    out
}

fn method(action: &ActionSpec, coroutine: bool) -> String {
    let (signature, native) = params(action);
    let mut sig = vec!["self".to_owned()];
    sig.extend(signature);
    let fields: Vec<String> = action
        .reply_spec()
        .map(|reply| reply.fields.iter().map(|f| f.name.to_owned()).collect())
        .unwrap_or_default();
    let returns = if action.pending {
        format!("Optional[{}]", action.reply)
    } else {
        action.reply.to_owned()
    };
    let renames: Vec<String> = action
        .params
        .iter()
        .filter_map(|param| {
            let (name, machine_code) = python_param(param.name);
            machine_code.then(|| format!("{}=\"{name}\"", param.name))
        })
        .collect();
    let mut out = String::from("\n");
    if !coroutine && !renames.is_empty() {
        out.push_str(&format!("    @renamed({})\n", renames.join(", ")));
    }
    let (def, invoke) = if coroutine {
        ("async def", "await self._invoke_async")
    } else {
        ("def", "self._invoke")
    };
    out.push_str(&format!(
        "    {def} {}({}) -> {returns}:\n        {}        reply = {invoke}(\n            \
         _native.lib.verify_{},\n",
        action.method,
        sig.join(", "),
        docstring(action, &fields.join(", ")),
        action.method
    ));
    for arg in native {
        out.push_str(&format!("            {arg},\n"));
    }
    out.push_str("        )\n");
    if action.pending {
        out.push_str("        if reply.code == Code.PENDING:\n            return None\n");
    }
    out.push_str(&format!(
        "        return {}.from_reply(reply)\n",
        action.reply
    ));
    out
}
