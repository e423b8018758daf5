//! What every action works with: the context (the locked state, the request's parameters,
//! the peer, the clock), the reply envelope, and the checks several actions share.

use serde_json::{json, Value};

use crate::fixtures::Program;
use crate::inspect::Read;
use crate::store::{CardRec, CardState, State};
use crate::wire::Params;

/// The reply envelope of the service.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub code: i64,
    pub message: String,
    pub data: Value,
}

impl Envelope {
    pub fn ok(message: &str, data: Value) -> Envelope {
        Envelope {
            code: 200,
            message: message.to_string(),
            data,
        }
    }

    pub fn err(code: i64, message: impl Into<String>) -> Envelope {
        Envelope {
            code,
            message: message.into(),
            data: Value::Null,
        }
    }

    /// An error that carries `data.remark`.
    pub fn remark(code: i64, message: impl Into<String>, remark: &str) -> Envelope {
        Envelope {
            code,
            message: message.into(),
            data: json!({ "remark": remark }),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({"code": self.code, "message": self.message, "data": self.data})
    }
}

/// What an action works on.
pub struct Ctx<'a> {
    pub st: &'a mut State,
    pub app_id: &'a str,
    /// The peer address of the TCP connection.
    pub ip: &'a str,
    pub now: i64,
    pub p: &'a Params,
    /// Every parameter looked up, in order.
    pub reads: std::cell::RefCell<Vec<Read>>,
}

impl Ctx<'_> {
    pub fn param(&self, names: &'static [&'static str]) -> Option<String> {
        self.lookup(names, false)
    }

    fn lookup(&self, names: &'static [&'static str], required: bool) -> Option<String> {
        let value = self.p.get(names).map(str::to_string);
        self.reads.borrow_mut().push(Read {
            names,
            required,
            found: value.is_some(),
        });
        value
    }

    /// A required parameter, or the 1013 reply naming it.
    pub fn require(&self, names: &'static [&'static str]) -> Result<String, Envelope> {
        self.lookup(names, true).ok_or_else(|| {
            Envelope::err(
                1013,
                format!(
                    "参数不完整：缺少{}",
                    names.first().copied().unwrap_or("参数")
                ),
            )
        })
    }

    pub fn program(&self) -> Option<&Program> {
        self.st.programs.get(self.app_id)
    }

    /// The 1023 reply when the blacklist is on and the peer IP or `mac` is on it.
    pub fn check_blacklist(&self, mac: Option<&str>) -> Result<(), Envelope> {
        let Some(p) = self.program() else {
            return Ok(());
        };
        let bl = &p.blacklist;
        let hit = bl.enabled
            && (bl.ips.iter().any(|ip| ip == self.ip)
                || mac.is_some_and(|m| bl.macs.iter().any(|x| x == m)));
        if hit {
            Err(Envelope::err(1023, "您已被列入黑名单，禁止使用"))
        } else {
            Ok(())
        }
    }

    /// The reason a machine code is disabled, if it is.
    pub fn device_disabled(&self, mac: &str) -> Option<String> {
        self.program()
            .and_then(|p| p.disabled_devices.get(mac))
            .cloned()
    }

    /// The product's rebind cap (`None` when off).
    pub fn rebind_cap(&self) -> Option<u32> {
        self.program().and_then(|p| p.max_rebinds)
    }

    pub fn count_verification(&mut self, action: &str) {
        let s = self.st.stats.entry(self.app_id.to_string()).or_default();
        match action {
            "SingleLogin" => s.single_login += 1,
            "UserLogin" => s.user_login += 1,
            _ => {}
        }
    }
}

/// Checks that a card can renew or activate an account: 1004, 1024, 1005.
pub fn check_account_card(card: Option<&CardRec>) -> Result<(), Envelope> {
    let Some(c) = card else {
        return Err(Envelope::err(1004, "卡密不存在或无效"));
    };
    // A count card is refused as such (docs/protocol.md#cards-and-accounts) whatever its state, except when it is
    // not usable at all (refunded, disabled).
    if c.is_count && !matches!(c.state, CardState::Refunded | CardState::Disabled) {
        return Err(Envelope::err(1024, "次卡不能用于账号注册或充值"));
    }
    match c.state {
        CardState::Refunded => Err(Envelope::err(1004, "卡密已退款")),
        CardState::Used => Err(Envelope::err(1004, "卡密已被使用")),
        CardState::Active => Err(Envelope::err(1004, "卡密已被激活使用")),
        CardState::Disabled => Err(Envelope::err(1004, "卡密已被禁用")),
        CardState::Expired => Err(Envelope::err(1005, "卡密已过期")),
        CardState::Unused => Ok(()),
    }
}
