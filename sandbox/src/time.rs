//! The sandbox's times: `YYYY-MM-DD HH:mm:ss` in Beijing time (UTC+08:00).

use time::format_description::FormatItem;
use time::macros::{format_description, offset};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

const FORMAT: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
const BEIJING: UtcOffset = offset!(+8);

/// `2099-12-31 23:59:59` Beijing time: the expiry of a count card.
pub const FAR_FUTURE: i64 = 4_102_415_999;

/// Formats Unix seconds as Beijing time. Out-of-range values are clamped.
pub fn format(unix: i64) -> String {
    let clamped = unix.clamp(0, 253_402_271_999 - 8 * 3600);
    OffsetDateTime::from_unix_timestamp(clamped)
        .map(|t| t.to_offset(BEIJING))
        .ok()
        .and_then(|t| t.format(FORMAT).ok())
        .unwrap_or_else(|| "1970-01-01 08:00:00".to_string())
}

/// Parses Beijing time `YYYY-MM-DD HH:mm:ss` into Unix seconds.
pub fn parse(s: &str) -> Result<i64, String> {
    PrimitiveDateTime::parse(s.trim(), FORMAT)
        .map(|t| t.assume_offset(BEIJING).unix_timestamp())
        .map_err(|_| format!("invalid time {s:?}: expected YYYY-MM-DD HH:mm:ss"))
}

/// The system clock in Unix seconds.
pub fn system_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// An HTTP `Date` header value for Unix seconds.
pub fn http_date(unix: i64) -> String {
    // 9999-12-31 23:59:59 UTC at most: beyond it the formatter has no representation.
    let secs = unix.clamp(0, 253_402_300_799) as u64;
    httpdate::fmt_http_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_in_beijing_time() {
        assert_eq!(format(0), "1970-01-01 08:00:00");
        assert_eq!(format(1_700_000_000), "2023-11-15 06:13:20");
        assert_eq!(format(FAR_FUTURE), "2099-12-31 23:59:59");
    }

    #[test]
    fn parses_round_trip() {
        assert_eq!(parse("2099-12-31 23:59:59"), Ok(FAR_FUTURE));
        assert_eq!(parse("2023-11-15 06:13:20"), Ok(1_700_000_000));
        assert!(parse("2023-11-15").is_err());
        assert!(parse("garbage").is_err());
    }

    #[test]
    fn http_date_is_imf_fixdate() {
        assert_eq!(http_date(1_700_000_000), "Tue, 14 Nov 2023 22:13:20 GMT");
    }
}
