//! Tool arguments, validated one by one. Every problem is a one-line message naming the
//! argument and what it takes, returned to the model as a tool error, never a protocol error.

use serde_json::{Map, Value};

/// The arguments of one call.
pub struct Args<'a>(pub &'a Map<String, Value>);

type R<T> = Result<T, String>;

impl Args<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    /// An optional string.
    pub fn str(&self, name: &str) -> R<Option<String>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("{name} must be a string.")),
        }
    }

    /// A required, non-empty string.
    pub fn required_str(&self, name: &str) -> R<String> {
        match self.str(name)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            _ => Err(format!("{name} is required.")),
        }
    }

    /// An optional string of at most `max` characters.
    pub fn str_max(&self, name: &str, max: usize) -> R<Option<String>> {
        let s = self.str(name)?;
        if let Some(s) = &s
            && s.chars().count() > max
        {
            return Err(format!("{name} is over {max} characters."));
        }
        Ok(s)
    }

    /// An optional whole number (numbers like `5.0` count; `5.5` does not).
    pub fn int(&self, name: &str) -> R<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                        .map(|f| f as i64)
                })
                .map(Some)
                .ok_or_else(|| format!("{name} must be a whole number.")),
            Some(_) => Err(format!("{name} must be a number.")),
        }
    }

    /// A number clamped to `lo..=hi`, or the default.
    pub fn clamped(&self, name: &str, default: i64, lo: i64, hi: i64) -> R<i64> {
        Ok(self.int(name)?.unwrap_or(default).clamp(lo, hi))
    }

    /// An optional boolean.
    pub fn bool(&self, name: &str) -> R<Option<bool>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("{name} must be true or false.")),
        }
    }

    /// An optional array of whole numbers.
    pub fn ids(&self, name: &str) -> R<Option<Vec<i64>>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_i64()
                        .ok_or_else(|| format!("{name} must be an array of numbers."))
                })
                .collect::<R<Vec<_>>>()
                .map(Some),
            Some(_) => Err(format!("{name} must be an array of numbers.")),
        }
    }

    /// An optional time: ISO 8601 date or date-time, or epoch milliseconds (as a number or a
    /// string).
    pub fn time(&self, name: &str, end_of_day: bool) -> R<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| format!("{name} must be a date or epoch milliseconds.")),
            Some(Value::String(s)) => crate::time::parse_time(s, end_of_day)
                .map(Some)
                .map_err(|e| format!("{name}: {e}")),
            Some(_) => Err(format!("{name} must be a date or epoch milliseconds.")),
        }
    }

    /// An optional value from a closed set.
    pub fn parsed<T: std::str::FromStr<Err = String>>(&self, name: &str) -> R<Option<T>> {
        self.str(name)?
            .map(|s| s.parse::<T>().map_err(|e| format!("{name}: {e}")))
            .transpose()
    }
}
