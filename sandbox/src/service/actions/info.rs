//! Program information: `GetLatestVersion`, `GetBulletin`, `GetVariable`.

use serde_json::json;

use super::ctx::{Ctx, Envelope};

/// Compares dotted version numbers: `Greater` when `a` is newer than `b`.
/// Each part counts by its leading digits; missing parts are 0.
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(v: &str) -> Vec<u64> {
        v.trim()
            .trim_start_matches(['v', 'V'])
            .split('.')
            .map(|p| {
                let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().unwrap_or(0)
            })
            .collect()
    }
    let (pa, pb) = (parts(a), parts(b));
    let n = pa.len().max(pb.len());
    (0..n)
        .map(|i| {
            let x = pa.get(i).copied().unwrap_or(0);
            let y = pb.get(i).copied().unwrap_or(0);
            x.cmp(&y)
        })
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

pub fn get_latest_version(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let client = cx.param(&["Version", "version"]);
    let Some(p) = cx.program() else {
        return Err(Envelope::err(1001, "程序不存在"));
    };
    let v = &p.version;
    let has_update = match client {
        None => true,
        Some(c) => compare_versions(&v.version, &c).is_gt(),
    };
    Ok(Envelope::ok(
        "获取成功",
        json!({
            "version": v.version,
            "changelog": v.changelog,
            "download_url": v.download_url,
            "force_update": v.force_update,
            "has_update": has_update,
        }),
    ))
}

pub fn get_bulletin(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let Some(p) = cx.program() else {
        return Err(Envelope::err(1001, "程序不存在"));
    };
    Ok(Envelope::ok(
        "获取成功",
        json!({
            "bulletin": p.bulletin,
            "updated_at": p.bulletin_updated_at.clone().unwrap_or_default(),
        }),
    ))
}

pub fn get_variable(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let name = cx.param(&["Name", "name", "Key"]);
    let Some(p) = cx.program() else {
        return Err(Envelope::err(1001, "程序不存在"));
    };
    match name {
        None => Ok(Envelope::ok(
            "获取成功",
            json!({ "variables": p.variables }),
        )),
        Some(n) => match p.variables.get(&n) {
            Some(value) => Ok(Envelope::ok("获取成功", json!({"name": n, "value": value}))),
            None => Err(Envelope::err(1013, format!("变量不存在：{n}"))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::compare_versions;
    use std::cmp::Ordering::*;

    #[test]
    fn dotted_versions() {
        assert_eq!(compare_versions("1.2.0", "1.1.9"), Greater);
        assert_eq!(compare_versions("1.2", "1.2.0"), Equal);
        assert_eq!(compare_versions("1.10.0", "1.9.0"), Greater);
        assert_eq!(compare_versions("1.0.0", "2"), Less);
        assert_eq!(compare_versions("v1.2.3", "1.2.3"), Equal);
        assert_eq!(compare_versions("garbage", "0"), Equal);
    }
}
