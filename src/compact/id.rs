//! OpenCode ids (opencode.md §4): `<prefix>_` + 12 lowercase hex digits (the low 48 bits of
//! `time_ms × 4096 + counter`, big-endian) + 14 characters of `0-9A-Za-z`. Messages and parts
//! ascend, so lexical order is creation order.

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Mints ascending ids for one process run: one clock reading, a counter that restarts at 1 on
/// every new millisecond, and a random tail.
pub struct IdMinter {
    last_ms: i64,
    counter: u64,
    tail: Box<dyn FnMut() -> [u8; 14]>,
}

impl IdMinter {
    /// Ids with random tails from the operating system.
    pub fn new() -> IdMinter {
        IdMinter::with_tail(|| {
            let mut bytes = [0u8; 14];
            // Without a random source the tail only needs to be well-formed; the hex part already
            // orders the ids.
            let _ = getrandom::fill(&mut bytes);
            bytes
        })
    }

    /// Ids whose tails come from `tail` (each byte picks a character), for reproducible tests.
    pub fn with_tail(tail: impl FnMut() -> [u8; 14] + 'static) -> IdMinter {
        IdMinter {
            last_ms: i64::MIN,
            counter: 0,
            tail: Box::new(tail),
        }
    }

    /// A new `<prefix>_…` id for time `now_ms`.
    pub fn mint(&mut self, prefix: &str, now_ms: i64) -> String {
        // Never go back in time within a run, so ids keep ascending.
        let ms = now_ms.max(self.last_ms);
        if ms == self.last_ms {
            self.counter += 1;
        } else {
            self.last_ms = ms;
            self.counter = 1;
        }
        let value = (ms as u64).wrapping_mul(4096).wrapping_add(self.counter) & 0xFFFF_FFFF_FFFF;
        let mut id = format!("{prefix}_{value:012x}");
        // 62 does not divide 256; the small bias does not matter for a uniqueness tail.
        id.extend(
            (self.tail)()
                .iter()
                .map(|b| BASE62[usize::from(*b) % 62] as char),
        );
        id
    }
}

impl Default for IdMinter {
    fn default() -> Self {
        IdMinter::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_documented_example() {
        // opencode.md §4: a message created at 1795346761241 has id msg_203018619001….
        let mut minter = IdMinter::with_tail(|| [0; 14]);
        assert_eq!(
            minter.mint("msg", 1795346761241),
            "msg_20301861900100000000000000"
        );
        assert_eq!(
            minter.mint("prt", 1795346761241),
            "prt_20301861900200000000000000"
        );
        assert_eq!(
            minter.mint("prt", 1795346761242),
            "prt_20301861a00100000000000000"
        );
    }

    #[test]
    fn ids_ascend_and_have_the_documented_shape() {
        let mut minter = IdMinter::new();
        let ids: Vec<String> = (0..50).map(|_| minter.mint("prt", 1795346761241)).collect();
        for id in &ids {
            assert_eq!(id.len(), 30);
            let (hex, tail) = id["prt_".len()..].split_at(12);
            assert!(
                hex.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            );
            assert!(tail.bytes().all(|b| b.is_ascii_alphanumeric()));
        }
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }
}
