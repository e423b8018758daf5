//! Every enum and flag set of the C ABI, written once: its members' C names and numbers, their
//! docs, and the enum's name in each binding. `src/generated/enums.rs` (and through it
//! `verify.h`), `include/verify/enums.hpp`, the C# enums (`Generated/*.g.cs`) and Python's
//! `_generated/enums.py` are generated from [`ENUMS`]; the C ABI converts the core's own
//! types to these numbers (`src/`), checked at compile time where the core numbers them too.
//!
//! Docs are plain sentences; `code` in backticks is written in each language's way. A member's
//! name is the C name without the enum's prefix (`ALIVE` of `VERIFY_EVENT_`).

/// The C type of an enum's constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntType {
    /// `int32_t`.
    I32,
    /// `uint32_t` (flag sets).
    U32,
}

/// Where an enum's C constants are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// Generated into `src/generated/enums.rs` from this table.
    Generated,
    /// Written by hand in this file of `src/` (kept there while another change owns it); the
    /// generated Rust checks at compile time that they hold this table's numbers.
    HandWritten(&'static str),
}

/// One member of an enum.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    /// The C name without the enum's prefix, in capitals (`BOARD_UUID`).
    pub name: &'static str,
    /// Its number.
    pub value: i64,
    /// What it means.
    pub doc: &'static str,
}

/// One enum (or flag set) of the C ABI.
#[derive(Debug, Clone, Copy)]
pub struct EnumSpec {
    /// Its name in C++ and C# (PascalCase), unless [`EnumSpec::csharp`] or
    /// [`EnumSpec::python`] says otherwise.
    pub name: &'static str,
    /// Its name in C#, when another.
    pub csharp: Option<&'static str>,
    /// Its name in Python, when another.
    pub python: Option<&'static str>,
    /// What it is, in a sentence.
    pub doc: &'static str,
    /// What the C constants' docs begin with (`` `kind` of a `verify_event` ``).
    pub c_what: &'static str,
    /// The C constants' prefix: a member's C name is this and its name.
    pub prefix: &'static str,
    /// The C type of its constants.
    pub ty: IntType,
    /// A set of flags, combined with `|` (C# `[Flags]`, Python `IntFlag`).
    pub flags: bool,
    /// Whether later versions of the library may give values not named here (a binding then
    /// keeps the number).
    pub open: bool,
    /// Where its C constants are written.
    pub home: Home,
    /// The core's own type of the same values, where the core numbers it: the expression of
    /// a member's number, `{}` standing for the member's name in PascalCase
    /// (`verify_core::diagnose::StepKind::{}.number()`). The generated Rust checks at compile
    /// time that each is the member's number, so the core's and the C ABI's cannot differ.
    pub core: Option<&'static str>,
    /// Its members, in order.
    pub members: &'static [Member],
}

impl EnumSpec {
    /// Its name in C#.
    pub fn csharp_name(&self) -> &'static str {
        self.csharp.unwrap_or(self.name)
    }

    /// Its name in Python.
    pub fn python_name(&self) -> &'static str {
        self.python.unwrap_or(self.name)
    }

    /// The C name of `member`.
    pub fn c_name(&self, member: &Member) -> String {
        format!("{}{}", self.prefix, member.name)
    }
}

const fn member(name: &'static str, value: i64, doc: &'static str) -> Member {
    Member { name, value, doc }
}

/// Every enum of the C ABI, in the header's order.
pub const ENUMS: &[EnumSpec] = &[
    EnumSpec {
        name: "SessionKind",
        csharp: None,
        python: None,
        doc: "The session a heartbeat or keeper keeps alive: the token of a card login or of an \
              account login.",
        c_what: "`kind` of a heartbeat or keeper",
        prefix: "VERIFY_SESSION_",
        ty: IntType::I32,
        flags: false,
        open: false,
        home: Home::Generated,
        core: None,
        members: &[
            member(
                "CARD",
                1,
                "A card-mode session (`Type=card`): the token of `verify_single_login`.",
            ),
            member(
                "USER",
                2,
                "An account session (`Type=user`): the token of `verify_user_login` or of a \
                 social login.",
            ),
        ],
    },
    EnumSpec {
        name: "EventKind",
        csharp: None,
        python: None,
        doc: "What a keeper's event reports.",
        c_what: "`kind` of a `verify_event`",
        prefix: "VERIFY_EVENT_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: None,
        members: &[
            member(
                "ALIVE",
                1,
                "A heartbeat succeeded; `expire_at` is the session's new expiry.",
            ),
            member(
                "MESSAGE",
                2,
                "A back-office message, in `text`, delivered once.",
            ),
            member(
                "TROUBLE",
                3,
                "A heartbeat failed; the keeper retries within the grace period and the \
                 session stays usable.",
            ),
            member(
                "ENDED",
                4,
                "The session ended, and the code says why: 1005, 1006 (with `remark`), 1007, \
                 another refusal of a login sent again after an offline start, the grace period \
                 that ran out (a local code of its own when offline), or a panic of the \
                 keeper's thread. The keeper has stopped.",
            ),
            member(
                "OFFLINE",
                5,
                "Offline verdicts on: the server cannot be reached; the session goes on offline \
                 until `grace_end`. Also the first event of a keeper started from an offline \
                 verdict.",
            ),
            member(
                "ONLINE",
                6,
                "Offline verdicts on: the server confirmed the licence again, or for the first \
                 time after an offline start; `expire_at` is its expiry.",
            ),
        ],
    },
    EnumSpec {
        name: "KeeperState",
        csharp: None,
        python: None,
        doc: "The state of a kept session. Treat a state not named here as \"not alive\".",
        c_what: "Keeper state",
        prefix: "VERIFY_KEEPER_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: None,
        members: &[
            member(
                "ALIVE",
                1,
                "The last heartbeat succeeded (or none was due yet).",
            ),
            member(
                "GRACE",
                2,
                "Heartbeats fail; the grace period runs; the session stays usable.",
            ),
            member("ENDED", 3, "The session ended or the keeper was stopped."),
        ],
    },
    EnumSpec {
        name: "LogLevel",
        csharp: None,
        python: None,
        doc: "The level of a log message.",
        c_what: "Log level",
        prefix: "VERIFY_LOG_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: None,
        members: &[
            member("ERROR", 1, "A call failed because of it."),
            member(
                "WARN",
                2,
                "Something went wrong and was handled (a retry, a failover, a re-Init).",
            ),
            member("INFO", 3, "A notable step (a new connection, an Init)."),
            member("DEBUG", 4, "Detail."),
        ],
    },
    EnumSpec {
        name: "Trust",
        csharp: Some("TrustStores"),
        python: None,
        doc: "The trust stores of a client (`verify_client_options_set_trust`), combined with \
              `|`; none for only the roots and pins added to the options.",
        c_what: "`verify_client_options_set_trust`",
        prefix: "VERIFY_TRUST_",
        ty: IntType::U32,
        flags: true,
        open: false,
        home: Home::Generated,
        core: None,
        members: &[
            member("MOZILLA", 1, "Mozilla's root certificates (the default)."),
            member(
                "SYSTEM",
                2,
                "The operating system's trust store (company CAs and TLS-inspecting proxies \
                 installed in the OS).",
            ),
        ],
    },
    EnumSpec {
        name: "ProxyMode",
        csharp: None,
        python: None,
        doc: "How a client reaches the service (`verify_client_options_set_proxy`); loopback \
              hosts never go through a proxy.",
        c_what: "`verify_client_options_set_proxy`",
        prefix: "VERIFY_PROXY_",
        ty: IntType::I32,
        flags: false,
        open: false,
        home: Home::Generated,
        core: None,
        members: &[
            member(
                "SYSTEM",
                0,
                "The system's settings (the default): the `ALL_PROXY`/`HTTPS_PROXY`/`HTTP_PROXY` \
                 variables with `NO_PROXY`, and on Windows the registry's Internet settings.",
            ),
            member("NONE", 1, "No proxy."),
            member(
                "URL",
                2,
                "The proxy given by URL (`http://`, `https://` CONNECT, `socks5://`, \
                 `socks5h://`, with an optional `user:password@`).",
            ),
        ],
    },
    EnumSpec {
        name: "CodePage",
        csharp: None,
        python: None,
        doc: "The code page of the strings a host passes and reads (`verify_set_code_page`): \
              these two, or any Windows code page number (936, 950, 54936, ...).",
        c_what: "`verify_set_code_page`",
        prefix: "VERIFY_CODE_PAGE_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::HandWritten("src/codepage.rs"),
        core: None,
        members: &[
            member("UTF8", 65001, "UTF-8, the default."),
            member(
                "SYSTEM",
                0,
                "The system's ANSI code page (`GetACP()` on Windows; UTF-8 on other systems).",
            ),
        ],
    },
    EnumSpec {
        name: "MachineVersion",
        csharp: None,
        python: None,
        doc: "The machine code's algorithm (`verify_machine_code_ex`).",
        c_what: "Machine code version",
        prefix: "VERIFY_MACHINE_",
        ty: IntType::I32,
        flags: false,
        open: false,
        home: Home::Generated,
        core: None,
        members: &[
            member(
                "V1",
                1,
                "v1: HMAC-SHA256 of one OS identity. The default, frozen: the same output \
                 forever.",
            ),
            member(
                "V2",
                2,
                "v2: several components, tolerant matching, kept in the state folder \
                 (docs/machine-code.md).",
            ),
        ],
    },
    EnumSpec {
        name: "MachineComponentKind",
        csharp: None,
        python: Some("ComponentKind"),
        doc: "A component of machine code v2.",
        c_what: "Component of machine code v2",
        prefix: "VERIFY_MACHINE_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: Some("verify_core::ComponentKind::{} as i32"),
        members: &[
            member(
                "BOARD_UUID",
                1,
                "The SMBIOS system UUID (Linux: root only; macOS IOPlatformUUID).",
            ),
            member(
                "BOARD_SERIAL",
                2,
                "The board's serial number (SMBIOS; Linux: root only; macOS platform serial).",
            ),
            member(
                "OS_INSTALL",
                3,
                "The OS installation (Windows MachineGuid, Linux /etc/machine-id).",
            ),
            member(
                "SYSTEM_VOLUME",
                4,
                "The system volume (Windows volume serial, Linux root file system UUID).",
            ),
            member("CPU", 5, "The processor's signature (CPUID)."),
            member(
                "MODEL",
                6,
                "The machine's model (SMBIOS manufacturer and product names, macOS hw.model).",
            ),
        ],
    },
    EnumSpec {
        name: "ComponentState",
        csharp: None,
        python: None,
        doc: "How a component of machine code v2 compares with the stored one.",
        c_what: "A component's state",
        prefix: "VERIFY_COMPONENT_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: Some("verify_core::ComponentState::{} as i32"),
        members: &[
            member("MATCHES", 1, "Read, equal to the stored one."),
            member("DIFFERS", 2, "Read, not the stored one."),
            member(
                "NOT_STORED",
                3,
                "Read, nothing stored to compare with (counts nothing).",
            ),
            member(
                "UNREADABLE",
                4,
                "Not readable now (no permission, missing; counts nothing).",
            ),
            member(
                "PLACEHOLDER",
                5,
                "A known placeholder value such as an all-zero SMBIOS UUID (counts nothing).",
            ),
        ],
    },
    EnumSpec {
        name: "MachineOutcome",
        csharp: None,
        python: Some("Outcome"),
        doc: "How the code of a machine code v2 check came about.",
        c_what: "Outcome of a v2 check",
        prefix: "VERIFY_MACHINE_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: Some("verify_core::Outcome::{} as i32"),
        members: &[
            member(
                "ISSUED",
                1,
                "Nothing was stored; the code was issued and stored. Also where nothing can be \
                 stored (a state folder under a file or on a read-only file system, a path too \
                 long): then the code is issued and not stored, and `verify_machine_check_note` \
                 says why.",
            ),
            member(
                "KEPT",
                2,
                "The stored code was kept (enough components match).",
            ),
            member(
                "REISSUED",
                3,
                "The components say another machine (or a new board): a new code was issued.",
            ),
            member(
                "STORE_UNREADABLE",
                4,
                "A stored code was there but did not open; the code was issued again.",
            ),
        ],
    },
    EnumSpec {
        name: "VirtualSignKind",
        csharp: None,
        python: Some("VirtualSign"),
        doc: "A sign of virtualisation.",
        c_what: "Sign of virtualisation",
        prefix: "VERIFY_VIRTUAL_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: Some("verify_core::SignKind::{} as i32"),
        members: &[
            member(
                "HYPERVISOR_BIT",
                1,
                "CPUID's hypervisor bit; the detail is the hypervisor's vendor (\"KVMKVMKVM\", \
                 \"Microsoft Hv\", \"VMwareVMware\"), or empty.",
            ),
            member(
                "FIRMWARE",
                2,
                "A firmware (SMBIOS/DMI) string of a virtual machine (\"QEMU\", \"VMware, \
                 Inc.\").",
            ),
            member(
                "CONTAINER",
                3,
                "A container marker (\"/.dockerenv\", \"/run/.containerenv\", a cgroup name).",
            ),
            member(
                "SYSTEM",
                4,
                "The OS says it runs under a hypervisor (macOS kern.hv_vmm_present, Linux \
                 /sys/hypervisor/type).",
            ),
        ],
    },
    EnumSpec {
        name: "Verdict",
        csharp: None,
        python: None,
        doc: "How a step of the doctor went, from best to worst.",
        c_what: "A step's verdict",
        prefix: "VERIFY_VERDICT_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: Some("verify_core::diagnose::Verdict::{} as i32"),
        members: &[
            member("PASS", 0, "It worked."),
            member(
                "SKIP",
                1,
                "Not run (not needed with these options, or no time left).",
            ),
            member(
                "WARN",
                2,
                "It worked, with something the developer or the user should know.",
            ),
            member(
                "FAIL",
                3,
                "It failed (one of the reasons the program cannot log in).",
            ),
        ],
    },
    EnumSpec {
        name: "DiagnosisActor",
        csharp: None,
        python: None,
        doc: "Who acts on a cause the doctor found.",
        c_what: "Who acts on a cause",
        prefix: "VERIFY_ACTOR_",
        ty: IntType::I32,
        flags: false,
        open: true,
        home: Home::Generated,
        core: Some("verify_core::diagnose::Actor::{} as i32"),
        members: &[
            member("NONE", 0, "Nobody: not a cause."),
            member(
                "USER",
                1,
                "The end user, on this computer or its network (check the network, the clock, \
                 the proxy, security software).",
            ),
            member(
                "VENDOR",
                2,
                "The software's vendor (the program's settings, its server): contact them.",
            ),
        ],
    },
];

/// Every enum of the C ABI, in the header's order: [`ENUMS`], then the doctor's step kinds,
/// made from the doctor's table in the core (`verify_core::diagnose::table::STEPS`: a new
/// step kind is one row there, CONTRIBUTING.md "Adding a doctor step").
pub fn all() -> &'static [EnumSpec] {
    static ALL: std::sync::OnceLock<Vec<EnumSpec>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let members: Vec<Member> = verify_core::diagnose::table::STEPS
            .iter()
            .map(|step| Member {
                name: Box::leak(step.name.to_ascii_uppercase().into_boxed_str()),
                value: i64::from(step.number),
                doc: step.doc,
            })
            .collect();
        let mut all = ENUMS.to_vec();
        all.push(EnumSpec {
            name: "DiagnosisStepKind",
            csharp: None,
            python: None,
            doc: "What a step of the doctor checked.",
            c_what: "A step of the doctor",
            prefix: "VERIFY_STEP_",
            ty: IntType::I32,
            flags: false,
            open: true,
            home: Home::Generated,
            core: Some("verify_core::diagnose::StepKind::{}.number()"),
            members: Box::leak(members.into_boxed_slice()),
        });
        all
    })
}
