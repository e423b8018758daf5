//! Request decoding: hex, RC4, MD5 signatures and the plaintext parameter string.
//! Pure functions, no I/O. Written against the `rc4`, `md-5` and `hex` crates directly.

use md5::{Digest, Md5};
use rc4::{consts, KeyInit, Rc4, StreamCipher};

/// Lowercase hex MD5 of `bytes` (a string's UTF-8 bytes): the one MD5 of the sandbox, for
/// the service's checks and the inspector's signature search alike.
pub fn md5_hex(bytes: impl AsRef<[u8]>) -> String {
    hex::encode(Md5::digest(bytes.as_ref()))
}

/// The Init signature: `MD5(AppId + AppKey + TimeStamp + AppKey)`.
pub fn init_sign(app_id: &str, app_key: &str, timestamp: &str) -> String {
    md5_hex(format!("{app_id}{app_key}{timestamp}{app_key}"))
}

/// The Handle signature: `MD5(ApiPassword + TimeStamp + Data)`.
pub fn handle_sign(api_password: &str, timestamp: &str, data: &str) -> String {
    md5_hex(format!("{api_password}{timestamp}{data}"))
}

fn rc4_with<N>(key: &[u8], data: &mut [u8]) -> Result<(), String>
where
    N: rc4::cipher::ArrayLength<u8>,
{
    let mut cipher = Rc4::<N>::new_from_slice(key).map_err(|_| "RC4 key length".to_string())?;
    cipher.apply_keystream(data);
    Ok(())
}

macro_rules! rc4_dispatch {
    ($key:expr, $data:expr; $($n:literal => $t:ident),* $(,)?) => {
        match $key.len() {
            $($n => rc4_with::<consts::$t>($key, $data),)*
            n => Err(format!("RC4 key of {n} bytes is not supported (1 to 64)")),
        }
    };
}

/// RC4 in place, keyed with `key` (1 to 64 bytes). Encryption and decryption are the same.
pub fn rc4_apply(key: &[u8], data: &mut [u8]) -> Result<(), String> {
    rc4_dispatch!(key, data;
        1 => U1, 2 => U2, 3 => U3, 4 => U4, 5 => U5, 6 => U6, 7 => U7, 8 => U8,
        9 => U9, 10 => U10, 11 => U11, 12 => U12, 13 => U13, 14 => U14, 15 => U15, 16 => U16,
        17 => U17, 18 => U18, 19 => U19, 20 => U20, 21 => U21, 22 => U22, 23 => U23, 24 => U24,
        25 => U25, 26 => U26, 27 => U27, 28 => U28, 29 => U29, 30 => U30, 31 => U31, 32 => U32,
        33 => U33, 34 => U34, 35 => U35, 36 => U36, 37 => U37, 38 => U38, 39 => U39, 40 => U40,
        41 => U41, 42 => U42, 43 => U43, 44 => U44, 45 => U45, 46 => U46, 47 => U47, 48 => U48,
        49 => U49, 50 => U50, 51 => U51, 52 => U52, 53 => U53, 54 => U54, 55 => U55, 56 => U56,
        57 => U57, 58 => U58, 59 => U59, 60 => U60, 61 => U61, 62 => U62, 63 => U63, 64 => U64,
    )
}

/// Whether an RC4 key of this length is supported.
pub fn key_len_ok(len: usize) -> bool {
    (1..=64).contains(&len)
}

/// Decodes `Data` (hex of either case) and decrypts it with the ApiPassword bytes, to the
/// plaintext's bytes. Errors are messages for a 1013 reply.
pub fn decrypt_bytes(api_password: &str, data: &str) -> Result<Vec<u8>, String> {
    if data.is_empty() {
        return Err("参数不完整：Data为空".to_string());
    }
    let mut bytes =
        hex::decode(data).map_err(|_| "参数错误：Data不是有效的十六进制字符串".to_string())?;
    rc4_apply(api_password.as_bytes(), &mut bytes).map_err(|e| format!("参数错误：{e}"))?;
    Ok(bytes)
}

/// The plaintext's bytes as text; the error is the message of a 1013 reply.
pub fn plaintext_utf8(bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|_| "参数错误：解密后的明文不是有效的UTF-8".to_string())
}

/// Decodes `Data` (hex of either case) and decrypts it with the ApiPassword bytes.
/// Errors are messages for a 1013 reply.
pub fn decrypt_data(api_password: &str, data: &str) -> Result<String, String> {
    decrypt_bytes(api_password, data).and_then(plaintext_utf8)
}

/// Decodes one key or value with form semantics: `+` is a space, `%XX` is a byte.
fn form_decode(s: &str) -> Result<String, String> {
    let replaced = s.replace('+', " ");
    percent_encoding::percent_decode_str(&replaced)
        .decode_utf8()
        .map(|c| c.into_owned())
        .map_err(|_| "参数错误：参数值不是有效的UTF-8".to_string())
}

/// [`form_decode`], with bytes that are not UTF-8 shown as U+FFFD (for display).
pub fn form_decode_lossy(s: &str) -> String {
    let replaced = s.replace('+', " ");
    percent_encoding::percent_decode_str(&replaced)
        .decode_utf8_lossy()
        .into_owned()
}

/// The decoded parameters of a plaintext, in order. The first occurrence of a key wins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Splits on `&` and on the first `=` of each pair, then form-decodes keys and values.
    pub fn parse(plaintext: &str) -> Result<Params, String> {
        let mut pairs = Vec::new();
        for part in plaintext.split('&') {
            if part.is_empty() {
                continue;
            }
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            pairs.push((form_decode(k)?, form_decode(v)?));
        }
        Ok(Params(pairs))
    }

    /// Every decoded pair, in the order sent.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }

    /// The first non-empty value among the given names (aliases), in order of the names.
    pub fn get(&self, names: &[&str]) -> Option<&str> {
        names.iter().find_map(|name| {
            self.0
                .iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| v.as_str())
        })
    }
}

/// The names of the 12 actions.
pub const ACTIONS: [&str; 12] = [
    "SingleLogin",
    "UserLogin",
    "UserRegin",
    "UpdatePwd",
    "ChangeBind",
    "UserHeartbeat",
    "GetLatestVersion",
    "GetBulletin",
    "GetVariable",
    "GetUserInfo",
    "GetCardInfo",
    "UserRecharge",
];

/// Parameter names and their aliases.
pub const MAC: &[&str] = &["Mac", "mac", "DeviceId"];
pub const DEVICE_NAME: &[&str] = &["DeviceName", "Device"];
pub const USERNAME: &[&str] = &["UserName", "username"];
pub const PASSWORD: &[&str] = &["Password", "pwd", "Pwd"];
pub const CARD: &[&str] = &["Card", "card"];
pub const NEW_PASSWORD: &[&str] = &["NewPassword", "NewPwd", "newpwd"];
pub const CHANGE_BIND_MAC: &[&str] = &["Mac", "mac", "NewMac", "DeviceId"];
pub const TOKEN: &[&str] = &["Token", "token"];

/// The decoded form of a service request.
pub struct Form(pub Vec<(String, String)>);

impl Form {
    pub fn parse(body: &[u8]) -> Form {
        Form(form_urlencoded::parse(body).into_owned().collect())
    }

    /// The first non-empty value of a field.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }
}

/// The ApiPassword of a Handle request and where it came from (`header`, `form` or
/// `path`), in the spec's order of priority.
pub fn api_password(
    header: Option<&str>,
    form: &Form,
    segment: &str,
) -> Option<(String, &'static str)> {
    if let Some(h) = header.filter(|p| !p.is_empty()) {
        return Some((h.to_string(), "header"));
    }
    if let Some(f) = form.get("ApiPassword") {
        return Some((f.to_string(), "form"));
    }
    let decoded = percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map(|s| s.into_owned())
        .unwrap_or_default();
    (!decoded.is_empty()).then_some((decoded, "path"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc4_known_answers() {
        let cases = [
            (
                "0102030405",
                "b2396305f03dc027ccc3524a0a1118a86982944f18fc82d589c403a47a0d0919",
            ),
            (
                "0102030405060708090a0b0c0d0e0f10",
                "9ac7cc9a609d1ef7b2932899cde41b975248c4959014126a6e8a84f11d1a9e1c",
            ),
        ];
        for (key, expected) in cases {
            let key = hex::decode(key).unwrap();
            let mut data = vec![0u8; 32];
            rc4_apply(&key, &mut data).unwrap();
            assert_eq!(hex::encode(data), expected);
        }
        assert!(rc4_apply(&[], &mut [0u8; 4]).is_err());
        assert!(rc4_apply(&[1u8; 65], &mut [0u8; 4]).is_err());
    }

    #[test]
    fn signatures() {
        assert_eq!(
            init_sign("10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "1700000000"),
            "18f8e7bad37abbce62e7e1205e57e9d2"
        );
        let data = "B41D092534124E6EBA3CBC8B02D4769C7D20";
        assert_eq!(
            handle_sign("0123456789abcdefABCDEF0123456789", "1700000124", data),
            "50314cf0eb56df38552e87babc8772d5"
        );
    }

    #[test]
    fn decrypts_either_case() {
        let pw = "0123456789abcdefABCDEF0123456789";
        let upper = "B41D092534124E6EBA3CBC8B02D4769C7D20";
        assert_eq!(decrypt_data(pw, upper).unwrap(), "action=GetVariable");
        assert_eq!(
            decrypt_data(pw, &upper.to_lowercase()).unwrap(),
            "action=GetVariable"
        );
        assert!(decrypt_data(pw, "ABC").is_err());
        assert!(decrypt_data(pw, "ZZ").is_err());
        assert!(decrypt_data(pw, "").is_err());
    }

    #[test]
    fn decrypts_vector_with_utf8() {
        let pw = "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp";
        let data = "2A87EDAE824D369709962821B25BCE546C3A3DA86DF9808D051FA2F0CA4E427278454E57CD4916B8C20597E48819A95681D430AD72D3B494B7B60D75BE1F015F744E79922106D1A8577A8891A6127D71D06E7B85DD69E8E5866BF11CBD39346060ACE22DCD9B7CE321";
        let plain = decrypt_data(pw, data).unwrap();
        let p = Params::parse(&plain).unwrap();
        assert_eq!(p.get(&["action"]), Some("UserLogin"));
        assert_eq!(p.get(&["UserName"]), Some("张三"));
        assert_eq!(p.get(&["Password", "pwd"]), Some("p&a=s+s %"));
        assert_eq!(p.get(&["mac", "Mac"]), Some("AA:BB:CC:DD:EE:FF"));
    }

    #[test]
    fn params_form_semantics() {
        let p = Params::parse("a=1+2&b=x%3Dy=z&&c&d=&a=second").unwrap();
        assert_eq!(p.get(&["a"]), Some("1 2"));
        assert_eq!(p.get(&["b"]), Some("x=y=z"));
        assert_eq!(p.get(&["c"]), None);
        assert_eq!(p.get(&["d", "b"]), Some("x=y=z"));
        assert!(Params::parse("a=%FF").is_err());
        assert_eq!(Params::parse("a=%zz").unwrap().get(&["a"]), Some("%zz"));
    }
}
