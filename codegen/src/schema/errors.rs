//! The families of the result codes that a binding raises as types of errors of their own:
//! what the program or its user does about a failure (enter the key again, renew, call the
//! vendor, check the network), written once over the code table's numbers. Python's
//! exception classes (`_generated/exceptions.py`) are generated from [`FAMILIES`].
//!
//! A family names the codes it has, or a class of the code table (so that the table's own
//! list is not written twice), or every refusal of the server; a code belongs to the
//! narrowest family that has it, and a code of no family to the root (the binding's base
//! error). A family names the family it narrows, or none under the root. [`family_of`] says
//! where a code goes; a code the table gains later goes to the root (a negative code) or to
//! the refusals (a positive one) until a family names it.

use verify_core::codes::{self, CodeClass};

/// Which codes a family has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codes {
    /// These codes.
    List(&'static [i32]),
    /// The codes of a class of the code table.
    Class(CodeClass),
    /// Every refusal of the server: a positive code that is not a success, those the table
    /// does not have too.
    Refusals,
}

/// One family of codes.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    /// Its name (PascalCase), the error type's in a binding unless it says otherwise.
    pub name: &'static str,
    /// Its name in Python, when another (one that a built-in exception would shadow).
    pub python: Option<&'static str>,
    /// The family it narrows; `None` for a child of the root.
    pub parent: Option<&'static str>,
    /// What it means and what is done about it, in a sentence or two.
    pub doc: &'static str,
    /// Its codes.
    pub codes: Codes,
}

impl Family {
    /// Its name in Python.
    pub fn python_name(&self) -> &'static str {
        self.python.unwrap_or(self.name)
    }

    /// Whether the family has `code` itself (not through a narrower family).
    pub fn has(&self, code: i32) -> bool {
        match self.codes {
            Codes::List(list) => list.contains(&code),
            Codes::Class(class) => class.has(code),
            Codes::Refusals => code > 0 && !CodeClass::Success.has(code),
        }
    }

    /// How many families lie between it and the root.
    fn depth(&self) -> usize {
        let mut depth = 0;
        let mut parent = self.parent;
        while let Some(name) = parent {
            depth += 1;
            parent = FAMILIES
                .iter()
                .find(|family| family.name == name)
                .and_then(|family| family.parent);
        }
        depth
    }
}

/// The narrowest family that has `code`, or `None` for the root (and for a success).
pub fn family_of(code: i32) -> Option<&'static Family> {
    FAMILIES
        .iter()
        .filter(|family| family.has(code))
        .max_by_key(|family| family.depth())
}

/// Every family, a parent before its children.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "Refused",
        python: None,
        parent: None,
        doc: "The server answered and refused the call: its code, its message and remark (the \
              reason of a ban, the machine code a licence is bound to) and the reply are kept. \
              The narrower families say what is done about it; a refusal of none of them is \
              this family's own.",
        codes: Codes::Refusals,
    },
    Family {
        name: "WrongCredentials",
        python: None,
        parent: Some("Refused"),
        doc: "The card key, the user name or the password is wrong (or the account does not \
              exist): the user enters it again.",
        codes: Codes::List(&[
            codes::WRONG_PASSWORD,
            codes::CARD_INVALID,
            codes::USER_NOT_REGISTERED,
        ]),
    },
    Family {
        name: "Banned",
        python: None,
        parent: Some("Refused"),
        doc: "The card, the account, this machine or this network is disabled or \
              blacklisted; the remark may say why: the user contacts the vendor.",
        codes: Codes::List(&[codes::DISABLED, codes::BLACKLISTED]),
    },
    Family {
        name: "Expired",
        python: None,
        parent: Some("Refused"),
        doc: "The licence has expired, is not activated, or a count card is used up: the user \
              renews it.",
        codes: Codes::List(&[codes::EXPIRED]),
    },
    Family {
        name: "MachineBoundElsewhere",
        python: None,
        parent: Some("Refused"),
        doc: "The licence is bound to another machine (the remark is that machine's code), or \
              may not move to another one again: the user moves it (a rebind) or contacts the \
              vendor.",
        codes: Codes::List(&[codes::MACHINE_CHANGED, codes::REBIND_LIMIT]),
    },
    Family {
        name: "ConfigurationRefused",
        python: None,
        parent: Some("Refused"),
        doc: "The program's configuration (AppId, AppKey, approval) was refused, not a \
              licence: the developer fixes it.",
        codes: Codes::Class(CodeClass::ConfigurationRefusal),
    },
    Family {
        name: "NetworkError",
        python: None,
        parent: None,
        doc: "The service could not be reached, or the connection broke: the user checks the \
              network.",
        codes: Codes::List(&[codes::ERR_NETWORK]),
    },
    Family {
        name: "TlsError",
        python: None,
        parent: Some("NetworkError"),
        doc: "The TLS handshake or the certificate check failed, or the certificate matches \
              none of the pinned keys (a network that intercepts TLS).",
        codes: Codes::List(&[codes::ERR_TLS, codes::ERR_PIN]),
    },
    Family {
        name: "ProxyError",
        python: None,
        parent: Some("NetworkError"),
        doc: "The proxy could not be reached, or it refused the credentials or the tunnel.",
        codes: Codes::List(&[codes::ERR_PROXY]),
    },
    Family {
        name: "OfflineRefused",
        python: None,
        parent: Some("NetworkError"),
        doc: "The service could not be reached and the stored offline verdict does not answer: \
              the code says why (the clock moved back, the grace period over, the licence \
              expired, another password, the time unconfirmed). Connecting once heals it.",
        codes: Codes::List(&[
            codes::ERR_CLOCK_BACK,
            codes::ERR_GRACE_OVER,
            codes::ERR_OFFLINE_EXPIRED,
            codes::ERR_OFFLINE_PASSWORD,
            codes::ERR_TIME_UNCONFIRMED,
        ]),
    },
    Family {
        name: "Timeout",
        python: Some("VerifyTimeout"),
        parent: None,
        doc: "The service did not answer within the connect or the whole call's timeout.",
        codes: Codes::List(&[codes::ERR_TIMEOUT]),
    },
    Family {
        name: "InvalidArgument",
        python: None,
        parent: None,
        doc: "An argument is empty, too long, out of range or not text the library takes: \
              nothing was sent.",
        codes: Codes::List(&[
            codes::ERR_INVALID_ARGUMENT,
            codes::ERR_INVALID_UTF8,
            codes::ERR_TOO_LARGE,
        ]),
    },
    Family {
        name: "ProtocolError",
        python: None,
        parent: None,
        doc: "The reply is not the service's (not its JSON: a captive portal's page, a proxy's \
              error), or a success lacks a field the service always gives.",
        codes: Codes::List(&[codes::ERR_PROTOCOL]),
    },
    Family {
        name: "Cancelled",
        python: None,
        parent: None,
        doc: "The host cancelled the call.",
        codes: Codes::List(&[codes::ERR_CANCELLED]),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_narrowest_family_and_every_parent_is_known() {
        for family in FAMILIES {
            if let Some(parent) = family.parent {
                let at = FAMILIES.iter().position(|f| f.name == parent);
                let own = FAMILIES.iter().position(|f| f.name == family.name);
                assert!(at < own, "{}'s parent {parent} comes first", family.name);
            }
        }
        for row in codes::TABLE {
            let depth = family_of(row.code).map(Family::depth);
            let narrowest = FAMILIES
                .iter()
                .filter(|family| family.has(row.code) && Some(family.depth()) == depth)
                .count();
            assert!(
                narrowest <= 1,
                "{} is in two families of one depth",
                row.name
            );
            if let Some(family) = family_of(row.code) {
                // A family's code is a refusal where the family descends from the refusals.
                let mut top = family;
                while let Some(parent) = top.parent {
                    top = FAMILIES.iter().find(|f| f.name == parent).expect("parent");
                }
                assert_eq!(top.codes == Codes::Refusals, row.code > 0, "{}", row.name);
            }
        }
        assert_eq!(family_of(codes::OK).map(|f| f.name), None);
        assert_eq!(family_of(1099).map(|f| f.name), Some("Refused"));
        assert_eq!(family_of(-99).map(|f| f.name), None);
        assert_eq!(
            family_of(codes::APP_KEY_WRONG).map(|f| f.name),
            Some("ConfigurationRefused")
        );
    }
}
