//! The schema: every fact that more than one language knows, in one value ([`Schema`]) that
//! each language's generator reads.
//!
//! - [`Schema::codes`]: the code table (`core/src/codes.rs`) with its classes
//!   ([`verify_core::codes::CodeClass`]).
//! - [`Schema::actions`], [`Schema::replies`]: the action table (`core/src/actions/table.rs`).
//! - [`Schema::faq`]: each code's cause and what the developer does ([`faq::FAQ`], written in
//!   `faq.rs` here, keyed by the code's name; a code without a row stops the generator).
//! - [`Schema::enums`]: every enum of the C ABI ([`enums::ENUMS`], written in `enums.rs` here,
//!   and the doctor's step kinds from the core's table: [`enums::all`]).
//! - [`Schema::families`]: the families of codes a binding raises as errors of their own
//!   ([`errors::FAMILIES`], written in `errors.rs` here over the code table's numbers).
//! - [`Schema::exports`], [`Schema::callbacks`], [`Schema::structs`], [`Schema::handles`],
//!   [`Schema::constants`]: the C ABI's declarations, read from `src/` by cbindgen
//!   ([`exports`]): never written again by hand.
//!
//! A generator of a new host language takes a `&Schema` and returns its files; it needs
//! nothing else.

pub mod enums;
pub mod errors;
pub mod exports;
pub mod faq;

use verify_core::actions::{ActionSpec, FieldSpec, FieldType, ParamKind, ReplySpec};
use verify_core::codes::{CodeClass, CodeInfo};

pub use enums::{EnumSpec, IntType, Member};
pub use exports::{
    CType, Callback, Constant, Export, Handle, Param, ParamKind as CParamKind, Returns, Struct,
    StructField,
};

/// Everything the generators read.
#[derive(Debug, Clone)]
pub struct Schema {
    /// The code table, in its order.
    pub codes: &'static [CodeInfo],
    /// The classes of the codes ([`CodeClass::codes`] says which codes each has).
    pub classes: &'static [CodeClass],
    /// The action table, in its order.
    pub actions: &'static [ActionSpec],
    /// The action table's reply views, in its order.
    pub replies: &'static [ReplySpec],
    /// The FAQ facts of every code (the 常见错误码 tables), keyed by the code's name.
    pub faq: &'static [faq::FaqRow],
    /// Every enum of the C ABI.
    pub enums: &'static [EnumSpec],
    /// The families of codes that a binding raises as errors of their own.
    pub families: &'static [errors::Family],
    /// Every exported function, in the header's order.
    pub exports: Vec<Export>,
    /// The callback types (`verify_event_callback`, `verify_log_callback`).
    pub callbacks: Vec<Callback>,
    /// The structs a host reads (`verify_event`).
    pub structs: Vec<Struct>,
    /// The opaque handle types (`verify_client`, ...), each with its free function.
    pub handles: Vec<Handle>,
    /// The constants of the header that are neither codes nor enum members
    /// (`VERIFY_ABI_VERSION`, `VERIFY_MACHINE_CODE_LEN`).
    pub constants: Vec<Constant>,
}

impl Schema {
    /// The tables alone, without the C ABI's declarations (what the Rust sources of the C ABI
    /// are generated from, before cbindgen reads them).
    pub fn tables() -> Schema {
        Schema {
            codes: verify_core::codes::TABLE,
            classes: &CodeClass::ALL,
            actions: verify_core::actions::ACTIONS,
            replies: verify_core::actions::REPLIES,
            faq: faq::FAQ,
            enums: enums::all(),
            families: errors::FAMILIES,
            exports: Vec::new(),
            callbacks: Vec::new(),
            structs: Vec::new(),
            handles: Vec::new(),
            constants: Vec::new(),
        }
    }

    /// The export named `name`.
    pub fn export(&self, name: &str) -> Option<&Export> {
        self.exports.iter().find(|export| export.name == name)
    }
}

/// Whether parameter `index` of `action` and all after it are optional (so C++, C# and Python
/// may give them defaults).
pub fn trailing_optional(action: &ActionSpec, index: usize) -> bool {
    action.params[index..]
        .iter()
        .all(|p| p.kind == ParamKind::Optional)
}

/// Whether a typed field is a time of the service (`YYYY-MM-DD HH:mm:ss` in UTC+08:00): its
/// type in the action table is `time`. The bindings read it through `verify_reply_time`, as
/// a number: the core parses it, once.
pub fn is_time(field: &FieldSpec) -> bool {
    field.ty == FieldType::Time
}
