//! The `alternate` response dialect (README "Dialects"): the same service, with other field
//! names in the replies of five actions, extra fields a client does not know, and some
//! documented fields left out. Code, message and the other actions are unchanged.

use serde_json::{json, Map, Value};

/// `(documented name, alternate name)`; an alternate name of `None` leaves the field out.
type Renames = &'static [(&'static str, Option<&'static str>)];

fn table(action: &str, data: &Map<String, Value>) -> Option<(Renames, Value)> {
    Some(match action {
        "GetLatestVersion" => (
            &[
                ("version", Some("latest_version")),
                ("changelog", Some("release_notes")),
                ("download_url", Some("download")),
                ("has_update", None),
            ],
            json!({"build": 1024, "published_at": "2024-01-01 00:00:00"}),
        ),
        "GetBulletin" => (
            &[
                ("bulletin", Some("notice")),
                ("updated_at", Some("update_time")),
            ],
            json!({"id": 1, "pinned": false}),
        ),
        "GetVariable" if data.contains_key("variables") => (
            &[("variables", Some("vars"))],
            json!({"count": data.get("variables").and_then(Value::as_object).map_or(0, Map::len)}),
        ),
        "GetVariable" => (
            &[("name", Some("key")), ("value", Some("val"))],
            json!({"type": "string"}),
        ),
        "GetUserInfo" => (
            &[
                ("username", Some("user_name")),
                ("expire_at", Some("expire_time")),
                ("bind_limit", None),
                ("created_at", None),
            ],
            json!({"vip_level": 0, "email": ""}),
        ),
        "GetCardInfo" => (
            &[
                ("card", Some("card_no")),
                ("card_type", Some("type_name")),
                ("expire_at", Some("expire_time")),
                ("activated_at", None),
            ],
            json!({"price": "0.00", "batch": "default"}),
        ),
        _ => return None,
    })
}

/// Rewrites the `data` of a successful reply of `action` into the alternate dialect.
pub fn alternate(action: &str, data: &mut Value) {
    let Value::Object(map) = data else { return };
    let Some((renames, extra)) = table(action, map) else {
        return;
    };
    for (from, to) in renames {
        if let Some(v) = map.remove(*from) {
            if let Some(to) = to {
                map.insert((*to).to_string(), v);
            }
        }
    }
    if let Value::Object(extra) = extra {
        map.extend(extra);
    }
}
