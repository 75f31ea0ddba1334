//! Time stamps: epoch milliseconds in files, RFC 3339 UTC for people and JSON.

use std::time::{SystemTime, UNIX_EPOCH};

/// One reading of the clock, in epoch milliseconds; commands take it once and reuse it.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

struct Parts {
    year: i64,
    month: u32,
    day: u32,
    hour: i64,
    minute: i64,
    second: i64,
    millis: i64,
}

fn split(ms: i64) -> Parts {
    let days = ms.div_euclid(86_400_000);
    let rest = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    Parts {
        year,
        month,
        day,
        hour: rest / 3_600_000,
        minute: rest / 60_000 % 60,
        second: rest / 1000 % 60,
        millis: rest % 1000,
    }
}

/// Epoch milliseconds of a UTC time stamp as JavaScript's `toISOString` writes it
/// (`2026-11-25T17:37:47.443Z`; the fraction may be absent or of any length).
pub fn parse_rfc3339_utc(text: &str) -> Option<i64> {
    let (date, clock) = text.strip_suffix('Z')?.split_once('T')?;
    // Seconds are required here: hours and minutes alone are what a person may type.
    (clock.len() >= 8).then_some(())?;
    utc_millis(date, Some(clock))
}

/// Epoch milliseconds of a `YYYY-MM-DD` date and an optional `HH:MM[:SS[.fraction]]` clock time,
/// both UTC; a fraction finer than milliseconds is cut. `None` for anything else, or a day the
/// month does not have.
fn utc_millis(date: &str, clock: Option<&str>) -> Option<i64> {
    let number = |text: &str, len: usize| -> Option<i64> {
        (text.len() == len && text.bytes().all(|c| c.is_ascii_digit()))
            .then(|| text.parse().ok())?
    };
    let mut parts = date.split('-');
    let (year, month, day) = (
        number(parts.next()?, 4)?,
        number(parts.next()?, 2)?,
        number(parts.next()?, 2)?,
    );
    if parts.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (month, day) = (month as u32, day as u32);
    let days = days_from_civil(year, month, day);
    if civil_from_days(days) != (year, month, day) {
        return None;
    }
    let mut ms = days * 86_400_000;
    if let Some(clock) = clock {
        let (hms, fraction) = match clock.split_once('.') {
            Some((hms, fraction)) => (hms, Some(fraction)),
            None => (clock, None),
        };
        let fields: Vec<i64> = hms
            .split(':')
            .map(|f| number(f, 2))
            .collect::<Option<_>>()?;
        let (h, m, s) = match fields[..] {
            [h, m] => (h, m, 0),
            [h, m, s] => (h, m, s),
            _ => return None,
        };
        let millis = match fraction {
            None => 0,
            Some(f)
                if fields.len() == 3 && !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()) =>
            {
                format!("{f:0<3}")[..3].parse::<i64>().ok()?
            }
            Some(_) => return None,
        };
        if h > 23 || m > 59 || s > 59 {
            return None;
        }
        ms += h * 3_600_000 + m * 60_000 + s * 1000 + millis;
    }
    Some(ms)
}

/// `2026-11-22T09:42:30.007Z`.
pub fn rfc3339_ms(ms: i64) -> String {
    let p = split(ms);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        p.year, p.month, p.day, p.hour, p.minute, p.second, p.millis
    )
}

/// `2026-11-22 09:42:30` (UTC), as transcript headings show it.
pub fn human_utc(ms: i64) -> String {
    let p = split(ms);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        p.year, p.month, p.day, p.hour, p.minute, p.second
    )
}

/// `850 ms`, `12 s`, `3 min 20 s`, `2 h 5 min`, `3 d 4 h`.
pub fn duration(ms: u64) -> String {
    let s = ms / 1000;
    match ms {
        0..1000 => format!("{ms} ms"),
        1000..60_000 => format!("{s} s"),
        60_000..3_600_000 => format!("{} min {} s", s / 60, s % 60),
        3_600_000..86_400_000 => format!("{} h {} min", s / 3600, s / 60 % 60),
        _ => format!("{} d {} h", s / 86_400, s / 3600 % 24),
    }
}

/// A point in time given by a person, as epoch milliseconds: `YYYY-MM-DD` (midnight UTC),
/// `YYYY-MM-DDTHH:MM[:SS[.mmm]]Z` (UTC), or a span before `now`: `30m`, `12h`, `7d`.
pub fn parse_point(text: &str, now: i64) -> Option<i64> {
    let text = text.trim();
    if let Some(ago) = parse_ago(text) {
        return Some(now - ago);
    }
    match text.split_once(['T', ' ']) {
        Some((date, clock)) => utc_millis(date, Some(clock.strip_suffix('Z').unwrap_or(clock))),
        None => utc_millis(text, None),
    }
}

/// `30m`, `12h`, `7d`, `2w` as milliseconds.
fn parse_ago(text: &str) -> Option<i64> {
    let unit = match text.chars().last()? {
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        'w' => 7 * 86_400_000,
        _ => return None,
    };
    let n: i64 = text[..text.len() - 1].parse().ok()?;
    n.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_for_people() {
        assert_eq!(duration(0), "0 ms");
        assert_eq!(duration(999), "999 ms");
        assert_eq!(duration(12_345), "12 s");
        assert_eq!(duration(200_000), "3 min 20 s");
        assert_eq!(duration(7_500_000), "2 h 5 min");
        assert_eq!(duration(274_000_000), "3 d 4 h");
    }

    #[test]
    fn parses_what_it_formats() {
        for ms in [0, 1_795_346_761_241, 951_782_400_000, -86_400_000] {
            assert_eq!(parse_rfc3339_utc(&rfc3339_ms(ms)), Some(ms), "{ms}");
        }
        assert_eq!(
            parse_rfc3339_utc("2026-11-25T17:37:47Z"),
            Some(1_795_628_267_000)
        );
        assert_eq!(
            parse_rfc3339_utc("2026-11-25T17:37:47.4Z"),
            Some(1_795_628_267_400)
        );
        for bad in [
            "",
            "2026-11-25",
            "2026-13-25T17:37:47Z",
            "2026-11-25T17:37:47+01:00",
            "2026-11-25T17:37:47.Z",
            "2026-02-30T00:00:00Z",
            "2026-11-25T17:37Z",
        ] {
            assert_eq!(parse_rfc3339_utc(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_795_340_642_950), "2026-11-22T09:44:02.950Z");
        assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(human_utc(1_795_340_650_000), "2026-11-22 09:44:10");
    }

    #[test]
    fn points_parse_as_utc() {
        assert_eq!(parse_point("1970-01-02", 0), Some(86_400_000));
        assert_eq!(
            parse_point("2026-11-22T09:42:30.007Z", 0)
                .map(rfc3339_ms)
                .as_deref(),
            Some("2026-11-22T09:42:30.007Z")
        );
        assert_eq!(
            parse_point("2026-11-22T09:42Z", 0)
                .map(rfc3339_ms)
                .as_deref(),
            Some("2026-11-22T09:42:00.000Z")
        );
        assert_eq!(parse_point("7d", 10 * 86_400_000), Some(3 * 86_400_000));
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "yesterday",
            "2026-1-1",
            "2026-11-22T25:00Z",
            "",
            "5x",
        ] {
            assert_eq!(parse_point(bad, 0), None, "{bad}");
        }
    }
}
