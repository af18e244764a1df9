//! Dates without a time-zone database: the store keeps epoch milliseconds and prints UTC.
//!
//! UTC keeps output the same on every machine and in every test; the conversions are the
//! proleptic-Gregorian day arithmetic, small enough not to need a date crate on the hot path.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Days since 1970-01-01 to (year, month, day).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// (year, month, day) to days since 1970-01-01.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2026-10-29`.
pub fn date(ms: i64) -> String {
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `19:46`.
pub fn hour_minute(ms: i64) -> String {
    let secs = ms.div_euclid(1000).rem_euclid(86_400);
    format!("{:02}:{:02}", secs / 3600, secs % 3600 / 60)
}

/// `2026-10-29T19:46`.
pub fn date_minute(ms: i64) -> String {
    format!("{}T{}", date(ms), hour_minute(ms))
}

/// `2026-10-29T19:46:45.563Z`.
pub fn iso(ms: i64) -> String {
    let secs = ms.div_euclid(1000).rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}.{:03}Z",
        date(ms),
        secs / 3600,
        secs % 3600 / 60,
        secs % 60,
        ms.rem_euclid(1000)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(date(0), "1970-01-01");
        // 2026-10-29T19:46:45.563Z
        let ms = 1_793_303_205_563;
        assert_eq!(iso(ms), "2026-10-29T19:46:45.563Z");
        assert_eq!(date_minute(ms), "2026-10-29T19:46");
        assert_eq!(date(-1), "1969-12-31");
    }

    #[test]
    fn day_arithmetic_round_trips() {
        for days in [-800_000, -1, 0, 59, 60, 365, 11_016, 20_000, 2_900_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}

/// Parse a user's time: epoch milliseconds, an ISO 8601 date (`2026-10-29`) or date-time
/// (`2026-10-29T19:46`, with optional seconds, fraction and `Z` or `±hh:mm`). With `end_of_day`,
/// a bare date means the end of that day (exclusive bound: the next midnight), so `until` a date
/// includes the day.
pub fn parse_time(s: &str, end_of_day: bool) -> Result<i64, String> {
    let s = s.trim();
    let bad = || {
        format!(
            "cannot read the date \"{s}\": use YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z] or epoch milliseconds."
        )
    };
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && s.len() > 8 {
        return s.parse::<i64>().map_err(|_| bad());
    }
    let (date_part, time_part) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut it = date_part.split('-');
    let (Some(y), Some(m), Some(d), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return Err(bad());
    };
    let num = |x: &str, len: usize| -> Result<i64, String> {
        if x.len() != len || !x.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        x.parse().map_err(|_| bad())
    };
    let (y, m, d) = (num(y, 4)?, num(m, 2)?, num(d, 2)?);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m as u32) {
        return Err(bad());
    }
    let day_ms = days_from_civil(y, m as u32, d as u32) * 86_400_000;
    let Some(t) = time_part else {
        return Ok(if end_of_day {
            day_ms + 86_400_000
        } else {
            day_ms
        });
    };
    let (clock, offset_ms) = if let Some(c) = t.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else if let Some(i) = t.rfind(['+', '-']).filter(|&i| i >= 5) {
        let (c, off) = t.split_at(i);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let (oh, om) = off[1..].split_once(':').unwrap_or((&off[1..], "00"));
        (c, sign * (num(oh, 2)? * 3600 + num(om, 2)? * 60) * 1000)
    } else {
        (t, 0)
    };
    let mut parts = clock.split(':');
    let h = num(parts.next().ok_or_else(bad)?, 2)?;
    let mi = num(parts.next().ok_or_else(bad)?, 2)?;
    let (sec, frac_ms) = match parts.next() {
        None => (0, 0),
        Some(sp) => {
            let (whole, frac) = sp.split_once('.').unwrap_or((sp, ""));
            let frac_ms = if frac.is_empty() {
                0
            } else if frac.bytes().all(|b| b.is_ascii_digit()) {
                format!("{frac:0<3}")[..3]
                    .parse::<i64>()
                    .map_err(|_| bad())?
            } else {
                return Err(bad());
            };
            (num(whole, 2)?, frac_ms)
        }
    };
    if parts.next().is_some() || h > 23 || mi > 59 || sec > 60 {
        return Err(bad());
    }
    Ok(day_ms + (h * 3600 + mi * 60 + sec) * 1000 + frac_ms - offset_ms)
}

fn days_in_month(y: i64, m: u32) -> i64 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    #[test]
    fn parses_dates_datetimes_and_epochs() {
        let day = parse_time("2026-10-29", false).unwrap();
        assert_eq!(date(day), "2026-10-29");
        assert_eq!(parse_time("2026-10-29", true).unwrap(), day + 86_400_000);
        assert_eq!(
            iso(parse_time("2026-10-29T19:46:45.563Z", false).unwrap()),
            "2026-10-29T19:46:45.563Z"
        );
        assert_eq!(
            iso(parse_time("2026-10-29T21:46+02:00", false).unwrap()),
            "2026-10-29T19:46:00.000Z"
        );
        assert_eq!(
            parse_time("1793304017358", false).unwrap(),
            1_793_304_017_358
        );
    }

    #[test]
    fn refuses_malformed_dates_with_the_accepted_forms() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "99999-01-01",
            "2026-10-29T25:00",
            "2026-1-2",
        ] {
            let e = parse_time(bad, false).unwrap_err();
            assert!(e.contains("YYYY-MM-DD"), "{bad}: {e}");
        }
    }
}
