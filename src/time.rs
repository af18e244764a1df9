//! The one place where instants meet calendars.
//!
//! The store keeps instants as epoch milliseconds, which never depend on where or when they are
//! read. People, though, read and type days and clock times in their own time zone, where a day
//! can last 23 or 25 hours and "yesterday" starts at a local midnight. Doing that arithmetic
//! here, on jiff and the system's time-zone database, keeps every caller from getting DST,
//! month lengths or leap years slightly wrong in its own way.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jiff::civil::Date;
use jiff::fmt::temporal::Pieces;
use jiff::tz::{Offset, TimeZone};
use jiff::{Timestamp, ToSpan, ZonedDateTime};

/// Now, in milliseconds since the Unix epoch.
///
/// Plain `SystemTime` on purpose: the capture hook calls this on every event, in a short-lived
/// process that has no use for a time-zone database.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, epoch_ms)
}

/// A time since the epoch in milliseconds, saturating at `i64::MAX` (a clock set 292 million
/// years ahead) rather than wrapping to a date before 1970.
fn epoch_ms(since_epoch: Duration) -> i64 {
    i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX)
}

/// A length of time as people say it, to the unit that matters: `moments`, `5 minutes`,
/// `1 hour`, `3 days`, `2 weeks`, `4 months`, `2 years`. For ages ("3 weeks ago") and gaps
/// ("changed 2 days later"), where an exact figure would only be noise. A negative span (a
/// clock that moved back) reads as moments.
pub fn span(ms: i64) -> String {
    const MINUTE: i64 = 60_000;
    const HOUR: i64 = 60 * MINUTE;
    const DAY: i64 = 24 * HOUR;
    const WEEK: i64 = 7 * DAY;
    // A month and a year as the calendar averages them (30.44 and 365.25 days).
    const MONTH: i64 = 2_629_746_000;
    const YEAR: i64 = 31_557_600_000;
    let (n, unit) = if ms < MINUTE {
        return "moments".to_owned();
    } else if ms < HOUR {
        (ms / MINUTE, "minute")
    } else if ms < DAY {
        (ms / HOUR, "hour")
    } else if ms < 2 * WEEK {
        // "10 days" says more than "1 week".
        (ms / DAY, "day")
    } else if ms < 2 * MONTH {
        (ms / WEEK, "week")
    } else if ms < YEAR {
        (ms / MONTH, "month")
    } else {
        (ms / YEAR, "year")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// `2026-10-29T19:46:45.563Z`: UTC, for reports other programs read.
pub fn iso_utc(ms: i64) -> String {
    Clock::utc(ms).iso(ms)
}

/// The user's time zone, read straight from its one TZif file.
///
/// `TimeZone::system()` looks the zone's name up in jiff's database, which first lists every
/// file under the zoneinfo folder: some 40 directory reads, about a millisecond, in a process
/// (a session-start hook, a command) that lives a few. Reading the one file the name points at
/// gives the same zone; anything this does not recognise falls back to jiff's own lookup.
fn system_zone() -> TimeZone {
    let fast = match std::env::var("TZ") {
        Ok(tz) => zone_for(Some(&tz)),
        Err(std::env::VarError::NotPresent) => zone_for(None),
        Err(std::env::VarError::NotUnicode(_)) => None,
    };
    fast.unwrap_or_else(TimeZone::system)
}

/// The zone for a `TZ` value, or for none set (`/etc/localtime`); `None` when it takes more
/// than reading one file.
fn zone_for(tz: Option<&str>) -> Option<TimeZone> {
    match tz {
        Some("") => Some(TimeZone::UTC),
        Some(tz) => {
            let tz = tz.strip_prefix(':').unwrap_or(tz);
            TimeZone::posix(tz).ok().or_else(|| zone_file(tz))
        }
        None => {
            let name = std::fs::read_link("/etc/localtime")
                .ok()
                .and_then(|target| {
                    let target = target.to_str()?;
                    let at = target.rfind("zoneinfo/")?;
                    Some(target[at + "zoneinfo/".len()..].to_owned())
                });
            let data = std::fs::read("/etc/localtime").ok()?;
            TimeZone::tzif(name.as_deref().unwrap_or("localtime"), &data).ok()
        }
    }
}

/// The zone `TZ` names: a file path, or a name under the zoneinfo folder (`ZONEINFO`, else
/// `/usr/share/zoneinfo`).
fn zone_file(tz: &str) -> Option<TimeZone> {
    let path = if tz.starts_with('/') {
        std::path::PathBuf::from(tz)
    } else if tz.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    } else {
        let dir = std::env::var_os("ZONEINFO").unwrap_or_else(|| "/usr/share/zoneinfo".into());
        std::path::Path::new(&dir).join(tz)
    };
    let name = tz
        .rfind("zoneinfo/")
        .map_or(tz, |at| &tz[at + "zoneinfo/".len()..]);
    TimeZone::tzif(name, &std::fs::read(path).ok()?).ok()
}

/// Which end of a day a bare date means.
///
/// `since 2026-03-08` wants the first instant of that day and `until 2026-03-08` the first
/// instant after it, so that both include the whole day the user named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Start,
    End,
}

/// "Now" and the user's time zone, taken once and passed down.
///
/// Relative dates and local days need both; carrying them in one value lets a command read the
/// clock once, and lets tests pin an instant and a zone instead of depending on the machine.
#[derive(Debug, Clone)]
pub struct Clock {
    now: i64,
    tz: TimeZone,
}

impl Clock {
    /// The real clock in the system's zone (`TZ` first, then `/etc/localtime`).
    pub fn system() -> Clock {
        Clock::new(now_ms(), system_zone())
    }

    pub fn new(now_ms: i64, tz: TimeZone) -> Clock {
        Clock { now: now_ms, tz }
    }

    pub fn utc(now_ms: i64) -> Clock {
        Clock::new(now_ms, TimeZone::UTC)
    }

    /// Epoch milliseconds.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// Local `2026-10-29`.
    pub fn date(&self, ms: i64) -> String {
        self.zoned(ms).strftime("%Y-%m-%d").to_string()
    }

    /// Local `19:46`; in the hour a clock repeats when summer time ends, with the offset that
    /// tells the two apart (`01:30-04:00`).
    pub fn hour_minute(&self, ms: i64) -> String {
        let z = self.zoned(ms);
        format!("{}{}", z.strftime("%H:%M"), self.fold_offset(&z))
    }

    /// Local `2026-10-29T19:46`: without the offset, for people, who know their own zone, except
    /// in the hour a clock repeats (`2026-11-01T01:30-05:00`).
    pub fn date_minute(&self, ms: i64) -> String {
        let z = self.zoned(ms);
        format!("{}{}", z.strftime("%Y-%m-%dT%H:%M"), self.fold_offset(&z))
    }

    /// The offset to print after a local time that alone could mean two instants; else nothing.
    fn fold_offset(&self, z: &ZonedDateTime) -> String {
        if !self.tz.to_ambiguous_timestamp(z.datetime()).is_ambiguous() {
            return String::new();
        }
        let secs = z.offset().seconds();
        let sign = if secs < 0 { '-' } else { '+' };
        let secs = secs.abs();
        format!("{sign}{:02}:{:02}", secs / 3600, secs % 3600 / 60)
    }

    /// Local `2026-10-29T21:46:45.563+02:00`, or `…Z` where the offset is zero, so a UTC clock
    /// prints exactly what [`iso`] prints.
    pub fn iso(&self, ms: i64) -> String {
        let at = instant(ms);
        let offset = self.tz.to_offset(at);
        if offset == Offset::UTC {
            format!("{at:.3}")
        } else {
            format!("{:.3}", at.display_with_offset(offset))
        }
    }

    /// Reads a time as people type it, into epoch milliseconds.
    ///
    /// Accepts epoch milliseconds (more than 8 digits), `YYYY-MM-DD` (the local day's start, or
    /// with [`Bound::End`] the next day's start), `YYYY-MM-DD[T ]HH:MM[:SS[.fff]]` (local, unless
    /// it ends in `Z` or `±HH:MM`), `now`, `today`, `yesterday` (days, like a date),
    /// `N minutes|hours|days|weeks|months|years ago` and `30m`, `12h`, `3d`, `2w`, `6mo`, `1y`.
    pub fn parse(&self, s: &str, bound: Bound) -> Result<i64, String> {
        let s = s.trim();
        let unreadable = || {
            format!(
                "cannot read the date \"{s}\": use YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z], epoch \
                 milliseconds or a relative time (yesterday, 3 days ago, 2w)."
            )
        };
        if s.len() > 8 && s.bytes().all(|b| b.is_ascii_digit()) {
            return s.parse().map_err(|_| unreadable());
        }
        if written_as_promised(s) {
            return self.absolute(s, bound).ok_or_else(unreadable);
        }
        self.relative(&s.to_ascii_lowercase(), bound)
            .ok_or_else(unreadable)
    }

    fn zoned(&self, ms: i64) -> ZonedDateTime {
        instant(ms).to_zoned_datetime(self.tz.clone())
    }

    fn absolute(&self, s: &str, bound: Bound) -> Option<i64> {
        let pieces = Pieces::parse(s).ok()?;
        let Some(time) = pieces.time() else {
            return self.day(pieces.date(), bound);
        };
        let at = pieces.date().to_datetime(time);
        let instant = match pieces.to_numeric_offset() {
            Some(offset) => offset.to_timestamp(at).ok()?,
            None => self.tz.to_zoned_datetime(at).ok()?.timestamp(),
        };
        Some(instant.as_millisecond())
    }

    /// The local midnight that starts `date` (or, for [`Bound::End`], the day after). Where a
    /// DST jump skips midnight, the day starts at the first instant that exists.
    fn day(&self, date: Date, bound: Bound) -> Option<i64> {
        let date = match bound {
            Bound::Start => date,
            Bound::End => date.tomorrow().ok()?,
        };
        let start = date.to_zoned_datetime(self.tz.clone()).ok()?;
        Some(start.timestamp().as_millisecond())
    }

    /// `s` is already lowercase.
    fn relative(&self, s: &str, bound: Bound) -> Option<i64> {
        let now = self.zoned(self.now);
        match s {
            "now" => return Some(self.now),
            "today" => return self.day(now.date(), bound),
            "yesterday" => return self.day(now.date().yesterday().ok()?, bound),
            _ => {}
        }
        let words: Vec<&str> = s.split_whitespace().collect();
        let (count, one) = match words[..] {
            [count, unit, "ago"] => (
                count,
                match unit {
                    "minute" | "minutes" | "min" | "mins" => 1.minute(),
                    "hour" | "hours" => 1.hour(),
                    "day" | "days" => 1.day(),
                    "week" | "weeks" => 1.week(),
                    "month" | "months" => 1.month(),
                    "year" | "years" => 1.year(),
                    _ => return None,
                },
            ),
            [compact] => {
                let (count, unit) = compact.split_at(compact.find(|c: char| !c.is_ascii_digit())?);
                (
                    count,
                    match unit {
                        "m" => 1.minute(),
                        "h" => 1.hour(),
                        "d" => 1.day(),
                        "w" => 1.week(),
                        "mo" => 1.month(),
                        "y" => 1.year(),
                        _ => return None,
                    },
                )
            }
            _ => return None,
        };
        if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let span = one.checked_mul(count.parse().ok()?).ok()?;
        let then = now.checked_sub(span).ok()?;
        Some(then.timestamp().as_millisecond())
    }
}

/// jiff's ISO 8601 reader also takes the basic (`20261029`, `T1946`), hour-only (`T19`),
/// six-digit-year and bracketed (`[Europe/Paris]`) forms. The message promises `YYYY-MM-DD` and
/// `HH:MM`, and a bracketed zone would otherwise be dropped in silence, so only the dashed and
/// coloned shape gets through to jiff, which then checks every field.
fn written_as_promised(s: &str) -> bool {
    let b = s.as_bytes();
    b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && (b.len() == 10 || b.get(13) == Some(&b':'))
        && !s.contains('[')
}

/// Milliseconds beyond jiff's ±9999 years can only be corrupt data; printing the nearest
/// representable instant beats refusing to print at all.
fn instant(ms: i64) -> Timestamp {
    Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    })
}

#[cfg(test)]
mod tests {
    #[rstest::rstest]
    #[case(-5, "moments")]
    #[case(59_999, "moments")]
    #[case(60_000, "1 minute")]
    #[case(3_599_999, "59 minutes")]
    #[case(7_200_000, "2 hours")]
    #[case(86_400_000, "1 day")]
    #[case(13 * 86_400_000, "13 days")]
    #[case(14 * 86_400_000, "2 weeks")]
    #[case(70 * 86_400_000, "2 months")]
    #[case(400 * 86_400_000, "1 year")]
    fn a_span_reads_in_the_unit_that_matters(#[case] ms: i64, #[case] said: &str) {
        assert_eq!(super::span(ms), said);
    }

    /// A clock in UTC, for formatting checks.
    const U: Clock = Clock {
        now: 0,
        tz: TimeZone::UTC,
    };
    use super::*;
    use rstest::rstest;

    /// 2026-10-29T19:46:45.563Z
    const AT: i64 = 1_793_303_205_563;
    const HOUR: i64 = 3_600_000;
    const DAY: i64 = 24 * HOUR;

    fn zone(name: &str) -> TimeZone {
        TimeZone::get(name).unwrap()
    }

    /// The instant an RFC 3339 text names, to write expectations the way people read them.
    fn ms(rfc3339: &str) -> i64 {
        rfc3339.parse::<Timestamp>().unwrap().as_millisecond()
    }

    #[test]
    fn the_users_zone_is_read_from_tz_without_the_database() {
        let zone = |tz: &str| Clock::new(0, zone_for(Some(tz)).expect(tz));
        assert_eq!(
            zone("Europe/Berlin").iso(AT),
            "2026-10-29T20:46:45.563+01:00"
        );
        assert_eq!(
            zone(":/usr/share/zoneinfo/America/New_York").iso(AT),
            "2026-10-29T15:46:45.563-04:00"
        );
        assert_eq!(
            zone("EST5EDT,M3.2.0,M11.1.0").iso(AT),
            "2026-10-29T15:46:45.563-04:00"
        );
        assert_eq!(zone("").iso(AT), "2026-10-29T19:46:45.563Z");
        assert_eq!(zone("UTC").iso(AT), "2026-10-29T19:46:45.563Z");
        assert!(zone_for(Some("../../etc/passwd")).is_none());
        assert!(zone_for(Some("Not/A_Zone")).is_none());
        // The machine's own zone, as jiff's database finds it.
        let local = Clock::new(0, zone_for(None).unwrap());
        assert_eq!(local.iso(AT), Clock::new(0, TimeZone::system()).iso(AT));
    }

    #[test]
    fn a_repeated_local_hour_shows_its_offset() {
        let ny = Clock::new(0, TimeZone::get("America/New_York").unwrap());
        // 2026-11-01: New York's clocks go from 01:59 EDT back to 01:00 EST.
        let first = U.parse("2026-11-01T05:30Z", Bound::Start).unwrap();
        let second = U.parse("2026-11-01T06:30Z", Bound::Start).unwrap();
        assert_eq!(ny.date_minute(first), "2026-11-01T01:30-04:00");
        assert_eq!(ny.date_minute(second), "2026-11-01T01:30-05:00");
        assert_eq!(ny.hour_minute(second), "01:30-05:00");
        let later = U.parse("2026-11-01T08:00Z", Bound::Start).unwrap();
        assert_eq!(ny.date_minute(later), "2026-11-01T03:00");
        assert_eq!(ny.hour_minute(later), "03:00");
    }

    #[test]
    fn a_clock_past_i64_milliseconds_saturates_instead_of_wrapping() {
        assert_eq!(epoch_ms(Duration::MAX), i64::MAX);
        assert_eq!(epoch_ms(Duration::from_millis(1 << 63)), i64::MAX);
        assert_eq!(
            epoch_ms(Duration::from_millis(1_700_000_000_123)),
            1_700_000_000_123
        );
    }

    #[test]
    fn formats_known_instants_in_utc() {
        assert_eq!(U.date(0), "1970-01-01");
        assert_eq!(U.date(-1), "1969-12-31");
        assert_eq!(U.iso(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(U.date(AT), "2026-10-29");
        assert_eq!(U.hour_minute(AT), "19:46");
        assert_eq!(U.date_minute(AT), "2026-10-29T19:46");
        assert_eq!(U.iso(AT), "2026-10-29T19:46:45.563Z");
        assert_eq!(U.iso(AT - 563), "2026-10-29T19:46:45.000Z");
        assert_eq!(Clock::utc(0).iso(AT), U.iso(AT));
    }

    #[test]
    fn formats_in_the_clocks_zone() {
        let berlin = Clock::new(AT, zone("Europe/Berlin"));
        // Winter time (CET) started on 2026-10-25.
        assert_eq!(berlin.iso(AT), "2026-10-29T20:46:45.563+01:00");
        assert_eq!(berlin.hour_minute(AT), "20:46");
        assert_eq!(berlin.date_minute(AT), "2026-10-29T20:46");
        let summer = ms("2026-07-01T22:30:00Z");
        assert_eq!(berlin.iso(summer), "2026-07-02T00:30:00.000+02:00");
        // Already the next day in Berlin, still the same one in UTC.
        assert_eq!(berlin.date(summer), "2026-07-02");
        assert_eq!(U.date(summer), "2026-07-01");
        let new_york = Clock::new(AT, zone("America/New_York"));
        assert_eq!(new_york.iso(AT), "2026-10-29T15:46:45.563-04:00");
    }

    #[test]
    fn out_of_range_instants_still_print() {
        // jiff's timestamps stop a day short of its civil range, so every offset stays printable.
        assert_eq!(U.iso(i64::MAX), "9999-12-30T22:00:00.999Z");
        assert_eq!(U.iso(i64::MIN), "-009999-01-02T01:59:59.000Z");
    }

    #[test]
    fn a_bare_date_spans_the_whole_local_day() {
        let new_york = Clock::new(AT, zone("America/New_York"));
        // DST starts on 2026-03-08, so that day lasts 23 hours.
        let start = new_york.parse("2026-03-08", Bound::Start).unwrap();
        let end = new_york.parse("2026-03-08", Bound::End).unwrap();
        assert_eq!(start, ms("2026-03-08T00:00-05:00"));
        assert_eq!(end, ms("2026-03-09T00:00-04:00"));
        assert_eq!(end - start, 23 * HOUR);
        assert_eq!(new_york.iso(end), "2026-03-09T00:00:00.000-04:00");

        let utc = Clock::utc(AT);
        let start = utc.parse("2026-03-08", Bound::Start).unwrap();
        assert_eq!(start, ms("2026-03-08T00:00Z"));
        assert_eq!(utc.parse("2026-03-08", Bound::End).unwrap(), start + DAY);
        assert_eq!(U.parse("2026-03-08", Bound::End).unwrap(), start + DAY);
        assert_eq!(U.parse("2026-03-08", Bound::Start).unwrap(), start);
    }

    #[test]
    fn a_day_whose_midnight_does_not_exist_starts_when_it_can() {
        // Santiago moved its clocks from 24:00 to 01:00 on 2026-09-06.
        let santiago = Clock::new(AT, zone("America/Santiago"));
        let start = santiago.parse("2026-09-06", Bound::Start).unwrap();
        assert_eq!(santiago.iso(start), "2026-09-06T01:00:00.000-03:00");
        assert_eq!(santiago.parse("2026-09-05", Bound::End).unwrap(), start);
    }

    #[rstest]
    #[case::local_minute("2026-10-29T20:46", "2026-10-29T20:46:00+01:00")]
    #[case::space_and_seconds("2026-10-29 20:46:45", "2026-10-29T20:46:45+01:00")]
    #[case::fraction("2026-10-29t20:46:45.563", "2026-10-29T20:46:45.563+01:00")]
    #[case::summer_time("2026-07-01T12:00", "2026-07-01T12:00+02:00")]
    #[case::zulu("2026-10-29T19:46:45.563Z", "2026-10-29T19:46:45.563Z")]
    #[case::lowercase_zulu("2026-10-29t19:46z", "2026-10-29T19:46Z")]
    #[case::offset("2026-10-29T21:46+02:00", "2026-10-29T19:46Z")]
    #[case::offset_without_colon("2026-10-29 14:46-0500", "2026-10-29T19:46Z")]
    fn date_times_are_local_unless_they_carry_an_offset(
        #[case] input: &str,
        #[case] instant: &str,
    ) {
        let berlin = Clock::new(AT, zone("Europe/Berlin"));
        for bound in [Bound::Start, Bound::End] {
            assert_eq!(berlin.parse(input, bound), Ok(ms(instant)), "{input}");
        }
    }

    #[test]
    fn utc_parsing_reads_what_iso_prints() {
        assert_eq!(U.parse(&U.iso(AT), Bound::Start), Ok(AT));
        assert_eq!(
            U.parse("2026-10-29T21:46+02:00", Bound::Start),
            Ok(AT - 45_563)
        );
    }

    #[rstest]
    #[case::now("now", Bound::Start, "2026-10-29T20:46:45.563+01:00")]
    #[case::now_end("NOW", Bound::End, "2026-10-29T20:46:45.563+01:00")]
    #[case::today("today", Bound::Start, "2026-10-29T00:00+01:00")]
    #[case::today_end("Today", Bound::End, "2026-10-30T00:00+01:00")]
    #[case::yesterday("yesterday", Bound::Start, "2026-10-28T00:00+01:00")]
    #[case::yesterday_end("yesterday", Bound::End, "2026-10-29T00:00+01:00")]
    #[case::minutes_ago("30 minutes ago", Bound::Start, "2026-10-29T20:16:45.563+01:00")]
    #[case::min_ago("1 min ago", Bound::Start, "2026-10-29T20:45:45.563+01:00")]
    #[case::hours_ago("2 hours ago", Bound::Start, "2026-10-29T18:46:45.563+01:00")]
    #[case::days_ago("3 days ago", Bound::End, "2026-10-26T20:46:45.563+01:00")]
    #[case::zero_days_ago("0 days ago", Bound::Start, "2026-10-29T20:46:45.563+01:00")]
    // Five calendar days back crosses the end of summer time: 121 hours, not 120.
    #[case::day_ago_over_dst("5 Days  Ago", Bound::Start, "2026-10-24T20:46:45.563+02:00")]
    #[case::week_ago("1 week ago", Bound::Start, "2026-10-22T20:46:45.563+02:00")]
    #[case::months_ago("6 months ago", Bound::Start, "2026-04-29T20:46:45.563+02:00")]
    #[case::year_ago("1 year ago", Bound::Start, "2025-10-29T20:46:45.563+01:00")]
    #[case::compact_minutes("30m", Bound::Start, "2026-10-29T20:16:45.563+01:00")]
    #[case::compact_hours("12h", Bound::Start, "2026-10-29T08:46:45.563+01:00")]
    #[case::compact_days("3d", Bound::Start, "2026-10-26T20:46:45.563+01:00")]
    #[case::compact_weeks("2W", Bound::Start, "2026-10-15T20:46:45.563+02:00")]
    #[case::compact_months("6mo", Bound::Start, "2026-04-29T20:46:45.563+02:00")]
    #[case::compact_years("1y", Bound::Start, "2025-10-29T20:46:45.563+01:00")]
    fn relative_times_count_back_from_the_clock(
        #[case] input: &str,
        #[case] bound: Bound,
        #[case] instant: &str,
    ) {
        let berlin = Clock::new(AT, zone("Europe/Berlin"));
        assert_eq!(berlin.parse(input, bound), Ok(ms(instant)), "{input}");
    }

    #[test]
    fn months_ago_clamps_to_the_end_of_a_shorter_month() {
        let clock = Clock::utc(ms("2026-03-31T12:00Z"));
        assert_eq!(
            clock.parse("1mo", Bound::Start),
            Ok(ms("2026-02-28T12:00Z"))
        );
    }

    #[test]
    fn relative_days_use_the_clocks_zone() {
        // 23:30 in UTC is already tomorrow in Tokyo.
        let now = ms("2026-10-29T23:30Z");
        let tokyo = Clock::new(now, zone("Asia/Tokyo"));
        assert_eq!(
            tokyo.parse("today", Bound::Start),
            Ok(ms("2026-10-30T00:00+09:00"))
        );
        assert_eq!(
            Clock::utc(now).parse("today", Bound::Start),
            Ok(ms("2026-10-29T00:00Z"))
        );
    }

    #[test]
    fn reads_epoch_milliseconds() {
        assert_eq!(
            U.parse("1793304017358", Bound::Start),
            Ok(1_793_304_017_358)
        );
        assert_eq!(
            Clock::new(AT, zone("Asia/Tokyo")).parse(" 1793304017358 ", Bound::End),
            Ok(1_793_304_017_358)
        );
    }

    #[rstest]
    #[case::empty("")]
    #[case::blank("   ")]
    #[case::month_13("2026-13-01")]
    #[case::february_30("2026-02-30")]
    #[case::five_digit_year("99999-01-01")]
    #[case::hour_25("2026-10-29T25:00")]
    #[case::single_digits("2026-1-2")]
    #[case::basic_date("20261029")]
    #[case::basic_time("2026-10-29T1946")]
    #[case::hour_only("2026-10-29T19")]
    #[case::six_digit_year("+002026-10-29")]
    #[case::bracketed_zone("2026-10-29T19:46[Europe/Paris]")]
    #[case::date_with_offset("2026-10-29Z")]
    #[case::trailing_junk("2026-10-29T19:46 tomorrow")]
    #[case::someday("someday")]
    #[case::soon("soon")]
    #[case::negative("-3d")]
    #[case::signed("+3d")]
    #[case::no_count("d")]
    #[case::no_unit("3")]
    #[case::unknown_unit("3s")]
    #[case::compact_ago("3d ago")]
    #[case::long_without_ago("3 days")]
    #[case::fraction("1.5h")]
    #[case::too_long_ago("99999999999y")]
    #[case::epoch_overflow("99999999999999999999")]
    fn refuses_everything_else_naming_the_accepted_forms(#[case] input: &str) {
        let message = format!(
            "cannot read the date \"{}\": use YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z], epoch \
             milliseconds or a relative time (yesterday, 3 days ago, 2w).",
            input.trim()
        );
        let clock = Clock::new(AT, zone("Europe/Berlin"));
        for bound in [Bound::Start, Bound::End] {
            assert_eq!(clock.parse(input, bound), Err(message.clone()), "{input:?}");
        }
        assert_eq!(U.parse(input, Bound::End), Err(message));
    }
}
