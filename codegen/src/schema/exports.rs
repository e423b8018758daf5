//! The C ABI's declarations, read from `src/` by cbindgen (the same parse that writes
//! `verify.h`): every exported function with its parameters (C type, and what the parameter
//! is: a string in, a handle, an out-pointer ...), the callback types, `struct verify_event`,
//! the opaque handles and the plain constants. The bindings' native declarations (C#'s
//! P/Invoke, Python's ctypes) are generated from these, never written again.
//!
//! A pointer parameter that may be NULL says so with an annotation in its function's doc
//! comment, `cbindgen:optional=[options]` (cbindgen keeps it out of the header).

use cbindgen::bindgen::ir::{self, IntKind, PrimitiveType, Type};

/// A C type, as the header spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CType {
    /// `void`.
    Void,
    /// `char` (only behind a pointer: a string or a buffer).
    Char,
    /// `int32_t`, `uint32_t`, `int64_t`, `uint64_t`.
    Int { bits: u8, signed: bool },
    /// `size_t`.
    SizeT,
    /// A type of the header by name: an opaque handle, a struct or a callback type.
    Named(String),
    /// A pointer.
    Ptr { to: Box<CType>, is_const: bool },
}

impl CType {
    /// The type as the header writes it (`const char *`, `verify_reply **`, `int32_t`).
    pub fn c(&self) -> String {
        match self {
            CType::Void => "void".to_owned(),
            CType::Char => "char".to_owned(),
            CType::Int { bits, signed } => {
                format!("{}int{bits}_t", if *signed { "" } else { "u" })
            }
            CType::SizeT => "size_t".to_owned(),
            CType::Named(name) => name.clone(),
            CType::Ptr { to, is_const } => {
                let inner = to.c();
                let inner = if inner.ends_with('*') {
                    inner
                } else {
                    inner + " "
                };
                if *is_const {
                    format!("const {inner}*")
                } else {
                    format!("{inner}*")
                }
            }
        }
    }

    /// Whether this is an integer type (by value).
    pub fn is_int(&self) -> bool {
        matches!(self, CType::Int { .. } | CType::SizeT)
    }

    fn of(ty: &Type) -> Result<CType, String> {
        Ok(match ty {
            Type::Ptr { ty, is_const, .. } => CType::Ptr {
                to: Box::new(CType::of(ty)?),
                is_const: *is_const,
            },
            Type::Path(path) => CType::Named(path.export_name().to_owned()),
            Type::Primitive(primitive) => match primitive {
                PrimitiveType::Void => CType::Void,
                PrimitiveType::Char | PrimitiveType::SChar | PrimitiveType::UChar => CType::Char,
                PrimitiveType::Integer { signed, kind, .. } => match kind {
                    IntKind::SizeT | IntKind::Size => CType::SizeT,
                    IntKind::B8 => CType::Int {
                        bits: 8,
                        signed: *signed,
                    },
                    IntKind::B16 => CType::Int {
                        bits: 16,
                        signed: *signed,
                    },
                    IntKind::B32 => CType::Int {
                        bits: 32,
                        signed: *signed,
                    },
                    IntKind::B64 => CType::Int {
                        bits: 64,
                        signed: *signed,
                    },
                    other => {
                        return Err(format!(
                            "the C ABI uses an integer of no fixed size: {other:?}"
                        ))
                    }
                },
                other => return Err(format!("a C type the generators do not know: {other:?}")),
            },
            other => return Err(format!("a C type the generators do not know: {other:?}")),
        })
    }
}

/// What a parameter is, from its C type: what every binding maps to its own types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer by value (its [`CType`]).
    Int,
    /// `const char *`: a NUL-terminated string the library copies.
    Str,
    /// `const char *const *`: an array of strings (with a count parameter).
    StrArray,
    /// A handle the call uses (`const verify_client *`): its type's name.
    Handle(String),
    /// A callback: its type's name.
    Callback(String),
    /// `void *user_data`, given back to a callback.
    UserData,
    /// `T *`: an integer the call writes (its [`CType`] is the pointer).
    OutInt,
    /// `const char **`: a borrowed string the call writes.
    OutStr,
    /// `verify_x **`: a new handle the call writes, which the caller frees: its type's name.
    OutHandle(String),
    /// `char *`: a buffer the call fills (its length is the next parameter).
    OutBuffer,
    /// `const struct *`: a struct the library lends (a callback's event): its name.
    Struct(String),
}

impl ParamKind {
    /// Whether the call writes through it.
    pub fn is_out(&self) -> bool {
        matches!(
            self,
            ParamKind::OutInt | ParamKind::OutStr | ParamKind::OutHandle(_) | ParamKind::OutBuffer
        )
    }
}

/// One parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Its name in `src/` and the header.
    pub name: String,
    /// Its C type.
    pub ty: CType,
    /// What it is.
    pub kind: ParamKind,
    /// Whether it may be NULL: a pointer named by the `cbindgen:optional` annotation of its
    /// function's doc comment (the generated action functions say it of their optional
    /// parameters; a hand-written export of each parameter its doc calls optional).
    pub optional: bool,
}

impl Param {
    /// The integer type of an [`ParamKind::Int`] or [`ParamKind::OutInt`] parameter.
    pub fn int(&self) -> &CType {
        match &self.ty {
            CType::Ptr { to, .. } => to,
            ty => ty,
        }
    }
}

/// What a function gives back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Returns {
    /// Nothing.
    Void,
    /// An integer (a code, a count, a version): its type.
    Int(CType),
    /// A static or borrowed `const char *` (never freed by the caller).
    Str,
}

/// One exported function.
#[derive(Debug, Clone)]
pub struct Export {
    /// Its name (`verify_reply_str`).
    pub name: String,
    /// Its doc comment, line by line (ownership and thread-safety included).
    pub doc: Vec<String>,
    /// Its parameters.
    pub params: Vec<Param>,
    /// What it gives back.
    pub returns: Returns,
    /// Whether it comes from the action table (`src/generated/actions.rs`).
    pub action: bool,
}

impl Export {
    /// Whether this is the free function of a handle type (its only parameter is that
    /// handle).
    pub fn frees(&self) -> Option<&str> {
        let stem = self.name.strip_suffix("_free")?;
        match self.params.as_slice() {
            [Param {
                kind: ParamKind::Handle(handle),
                ..
            }] if handle == stem => Some(handle),
            _ => None,
        }
    }
}

/// A callback type.
#[derive(Debug, Clone)]
pub struct Callback {
    /// Its name (`verify_event_callback`).
    pub name: String,
    /// Its doc comment.
    pub doc: Vec<String>,
    /// Its parameters.
    pub params: Vec<Param>,
    /// What it gives back.
    pub returns: Returns,
}

/// A field of a struct.
#[derive(Debug, Clone)]
pub struct StructField {
    /// Its name.
    pub name: String,
    /// Its C type.
    pub ty: CType,
    /// Its doc comment.
    pub doc: Vec<String>,
}

/// A struct the library lends to a host (`verify_event`).
#[derive(Debug, Clone)]
pub struct Struct {
    /// Its name.
    pub name: String,
    /// Its doc comment.
    pub doc: Vec<String>,
    /// Its fields, in order.
    pub fields: Vec<StructField>,
}

/// An opaque handle type.
#[derive(Debug, Clone)]
pub struct Handle {
    /// Its name (`verify_keeper_status`).
    pub name: String,
    /// Its doc comment.
    pub doc: Vec<String>,
    /// Its free function (`verify_keeper_status_free`).
    pub free: String,
}

impl Handle {
    /// The name without `verify_` (`keeper_status`).
    pub fn short(&self) -> &str {
        self.name.strip_prefix("verify_").unwrap_or(&self.name)
    }
}

/// A constant of the header that is neither a code nor an enum member.
#[derive(Debug, Clone)]
pub struct Constant {
    /// Its name (`VERIFY_ABI_VERSION`).
    pub name: String,
    /// Its value, as written in the source (`2`, `32`).
    pub value: String,
    /// Its C type.
    pub ty: CType,
    /// Its doc comment.
    pub doc: Vec<String>,
}

/// The declarations of cbindgen's parse of `src/`. `handles` are the opaque types; `skip`
/// holds the names of constants the schema already has (codes and enum members).
pub fn read(
    bindings: &cbindgen::Bindings,
    actions: &[String],
    skip: &[String],
) -> Result<Declarations, String> {
    let mut out = Declarations::default();
    let mut opaque = Vec::new();
    for item in &bindings.items {
        if let ir::ItemContainer::OpaqueItem(item) = item {
            opaque.push((
                item.export_name.clone(),
                item.documentation.doc_comment.clone(),
            ));
        }
    }
    let handles = opaque_names(&opaque);
    for item in &bindings.items {
        match item {
            ir::ItemContainer::Struct(item) => {
                let mut fields = Vec::new();
                for field in &item.fields {
                    fields.push(StructField {
                        name: field.name.clone(),
                        ty: CType::of(&field.ty)?,
                        doc: field.documentation.doc_comment.clone(),
                    });
                }
                out.structs.push(Struct {
                    name: item.export_name.clone(),
                    doc: item.documentation.doc_comment.clone(),
                    fields,
                });
            }
            ir::ItemContainer::Typedef(item) => {
                let Type::FuncPtr { ret, args, .. } = &item.aliased else {
                    return Err(format!(
                        "{}: a typedef that is not a callback",
                        item.export_name
                    ));
                };
                let mut params = Vec::new();
                for (name, ty) in args {
                    let name = name.clone().unwrap_or_default();
                    params.push(param(&name, ty, &[], &handles)?);
                }
                out.callbacks.push(Callback {
                    name: item.export_name.clone(),
                    doc: item.documentation.doc_comment.clone(),
                    params,
                    returns: returns(ret)?,
                });
            }
            _ => {}
        }
    }
    for constant in &bindings.constants {
        if skip.contains(&constant.export_name) {
            continue;
        }
        let ir::Literal::Expr(value) = &constant.value else {
            return Err(format!(
                "{}: a constant that is not a number",
                constant.export_name
            ));
        };
        out.constants.push(Constant {
            name: constant.export_name.clone(),
            value: value.clone(),
            ty: CType::of(&constant.ty)?,
            doc: constant.documentation.doc_comment.clone(),
        });
    }
    for function in &bindings.functions {
        let name = function.path.name().to_owned();
        let optional = function.annotations.list("optional").unwrap_or_default();
        let mut params = Vec::new();
        for arg in &function.args {
            let arg_name = arg.name.clone().unwrap_or_default();
            params.push(param(&arg_name, &arg.ty, &optional, &handles)?);
        }
        for wanted in &optional {
            if !params.iter().any(|p| &p.name == wanted) {
                return Err(format!(
                    "{name}: cbindgen:optional names {wanted}, not a parameter"
                ));
            }
        }
        out.exports.push(Export {
            action: actions.contains(&name),
            doc: function.documentation.doc_comment.clone(),
            returns: returns(&function.ret)?,
            params,
            name,
        });
    }
    for (name, doc) in opaque {
        let free = format!("{name}_free");
        if !out.exports.iter().any(|e| e.name == free) {
            return Err(format!("the handle {name} has no {free}"));
        }
        out.handles.push(Handle { name, doc, free });
    }
    Ok(out)
}

/// What [`read`] finds.
#[derive(Debug, Default)]
pub struct Declarations {
    /// Every exported function.
    pub exports: Vec<Export>,
    /// Every callback type.
    pub callbacks: Vec<Callback>,
    /// Every struct.
    pub structs: Vec<Struct>,
    /// Every opaque handle.
    pub handles: Vec<Handle>,
    /// The plain constants.
    pub constants: Vec<Constant>,
}

fn opaque_names(opaque: &[(String, Vec<String>)]) -> Vec<String> {
    opaque.iter().map(|(name, _)| name.clone()).collect()
}

fn returns(ty: &Type) -> Result<Returns, String> {
    Ok(match CType::of(ty)? {
        CType::Void => Returns::Void,
        ty if ty.is_int() => Returns::Int(ty),
        CType::Ptr { to, is_const: true } if *to == CType::Char => Returns::Str,
        other => {
            return Err(format!(
                "a return type the generators do not know: {}",
                other.c()
            ))
        }
    })
}

fn param(name: &str, ty: &Type, optional: &[String], handles: &[String]) -> Result<Param, String> {
    let ty = CType::of(ty)?;
    let is_handle = |n: &str| handles.iter().any(|h| h == n);
    let kind = match &ty {
        t if t.is_int() => ParamKind::Int,
        CType::Named(callback) => ParamKind::Callback(callback.clone()),
        CType::Ptr { to, is_const } => match (to.as_ref(), *is_const) {
            (CType::Char, true) => ParamKind::Str,
            (CType::Char, false) => ParamKind::OutBuffer,
            (CType::Void, _) => ParamKind::UserData,
            (CType::Named(n), _) if is_handle(n) => ParamKind::Handle(n.clone()),
            (CType::Named(n), true) => ParamKind::Struct(n.clone()),
            (t, false) if t.is_int() => ParamKind::OutInt,
            (CType::Ptr { to, is_const: true }, true) if **to == CType::Char => ParamKind::StrArray,
            (CType::Ptr { to, is_const: true }, false) if **to == CType::Char => ParamKind::OutStr,
            (
                CType::Ptr {
                    to,
                    is_const: false,
                },
                false,
            ) => match to.as_ref() {
                CType::Named(n) if is_handle(n) => ParamKind::OutHandle(n.clone()),
                other => {
                    return Err(format!(
                        "{name}: a pointer the generators do not know: {}",
                        other.c()
                    ))
                }
            },
            _ => {
                return Err(format!(
                    "{name}: a parameter the generators do not know: {}",
                    ty.c()
                ))
            }
        },
        _ => {
            return Err(format!(
                "{name}: a parameter the generators do not know: {}",
                ty.c()
            ))
        }
    };
    Ok(Param {
        optional: optional.iter().any(|o| o == name),
        name: name.to_owned(),
        ty,
        kind,
    })
}
