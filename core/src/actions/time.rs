//! The service's times: the action table's `time` fields (`expire_at`, `updated_at`, ...),
//! written `YYYY-MM-DD HH:mm:ss` in Beijing time (UTC+08:00) without an offset. Parsed here,
//! once: the C ABI gives them to every binding as numbers (`verify_reply_time`,
//! `verify_service_time`), so that no binding reads the format again.

/// The offset of every time the service writes, in seconds east of UTC: UTC+08:00, with no
/// daylight saving.
pub const UTC_OFFSET_SECONDS: i32 = 8 * 3600;

/// A time of the service as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceTime {
    /// Seconds since 1970-01-01 00:00:00 UTC.
    pub unix_seconds: i64,
    /// The offset it was written in, in seconds east of UTC ([`UTC_OFFSET_SECONDS`]).
    pub utc_offset: i32,
}

/// `text` read as a time of the service: exactly `YYYY-MM-DD HH:mm:ss` (ASCII digits), a date
/// that exists (leap years included) and a time of day; `None` for anything else (empty,
/// another form, `2099-02-30 00:00:00`).
pub fn parse(text: &str) -> Option<ServiceTime> {
    let bytes = text.as_bytes();
    if bytes.len() != 19
        || bytes[4] != b'-'
        || bytes[7] != b'-'
        || bytes[10] != b' '
        || bytes[13] != b':'
        || bytes[16] != b':'
    {
        return None;
    }
    let number = |from: usize, to: usize| -> Option<i64> {
        bytes[from..to].iter().try_fold(0i64, |value, &byte| {
            byte.is_ascii_digit()
                .then(|| value * 10 + i64::from(byte - b'0'))
        })
    };
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if year < 1 || !(1..=days_in_month).contains(&day) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let local = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    Some(ServiceTime {
        unix_seconds: local - i64::from(UTC_OFFSET_SECONDS),
        utc_offset: UTC_OFFSET_SECONDS,
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_times_are_beijing_time() {
        let at = |text| parse(text).map(|time| time.unix_seconds);
        assert_eq!(at("1970-01-01 08:00:00"), Some(0));
        assert_eq!(at("2024-01-01 08:00:00"), Some(1_704_067_200));
        assert_eq!(at("2099-03-04 05:06:07"), Some(4_076_255_167));
        assert_eq!(at("2024-02-29 00:00:00"), Some(1_709_136_000));
        assert_eq!(
            parse("2099-12-31 23:59:59").map(|time| time.utc_offset),
            Some(UTC_OFFSET_SECONDS)
        );
    }

    #[test]
    fn anything_else_is_not_a_service_time() {
        for bad in [
            "",
            "2099-13-04 05:06:07",
            "2099-02-30 00:00:00",
            "2023-02-29 00:00:00",
            "2099-03-04T05:06:07",
            "2099-03-04 05:06",
            "2099-03-04 05:06:0x",
            "2099-03-04 24:00:00",
            "0000-01-01 00:00:00",
            " 2099-03-04 05:06:07",
            "２099-03-04 05:06:0",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
