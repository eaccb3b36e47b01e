//! A bounded decoder for lz-string's `compressToEncodedURIComponent` format.
//!
//! Why not `lz_str::decompress_from_encoded_uri_component`: it has no output limit and keeps
//! every dictionary entry as its own vector. An LZW stream whose every code names the entry
//! just being defined makes entry k about k units long, so a link of n codes unpacks to about
//! n²/2 units (a 256 KiB link would ask for gigabytes) and the page dies. This decoder stops
//! as soon as the output would pass `max_units`, and stores each dictionary entry as a range
//! of the output (an entry is always the previous entry followed by the first unit of the
//! current one, and those two sit next to each other in the output), so its memory is linear
//! in the output and its time linear in input plus output.
//!
//! The format (lz-string 1.x): a bit stream, 6 bits per character of [`ALPHABET`], each
//! character's bits read from high to low, each code's bits from low to high. Codes start 2
//! bits wide; code 0 and 1 bring a literal 8- or 16-bit unit, code 2 ends the stream, any
//! other code names a dictionary entry (entries 0–2 are reserved). The width grows by one bit
//! each time the dictionary doubles.

/// The characters of the URI-component variant, in value order. The 65th, `$`, is never
/// written (values are 6 bits); the reference decoders read it as value 64, i.e. six zero bits.
pub const ALPHABET: &[u8; 65] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$";

/// Why a stream does not decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LzError {
    /// No characters at all.
    Empty,
    /// A character outside [`ALPHABET`], at this character index.
    BadChar { ch: char, at: usize },
    /// The bits ran out before the end code: the link was cut off.
    Truncated,
    /// A code that names no dictionary entry (garbage or a damaged link).
    BadCode,
    /// The output would exceed the cap.
    TooLarge,
}

/// Reads the bit stream of a string of alphabet values.
struct Bits<'a> {
    vals: &'a [u8],
    idx: usize,
    mask: u8,
}

impl Bits<'_> {
    fn bit(&mut self) -> Result<bool, LzError> {
        let v = *self.vals.get(self.idx).ok_or(LzError::Truncated)?;
        let b = v & self.mask != 0;
        self.mask >>= 1;
        if self.mask == 0 {
            self.mask = 32;
            self.idx += 1;
        }
        Ok(b)
    }

    /// `n` bits, least significant first (`n` ≤ 31).
    fn read(&mut self, n: u32) -> Result<u32, LzError> {
        let mut r = 0;
        for i in 0..n {
            r |= u32::from(self.bit()?) << i;
        }
        Ok(r)
    }
}

/// Maps characters to their 6-bit values; a space counts as `+` (a `+` in a URL may have been
/// read as a space on the way, as lz-string itself allows).
fn values(input: &str) -> Result<Vec<u8>, LzError> {
    input
        .chars()
        .enumerate()
        .map(|(at, ch)| {
            let c = if ch == ' ' { '+' } else { ch };
            u8::try_from(c)
                .ok()
                .and_then(|b| ALPHABET.iter().position(|&a| a == b))
                .map(|p| p as u8)
                .ok_or(LzError::BadChar { ch, at })
        })
        .collect()
}

/// Widens codes by one bit once the dictionary has doubled.
fn grow(enlarge_in: &mut u64, width: &mut u32) -> Result<(), LzError> {
    if *enlarge_in == 0 {
        *enlarge_in = 1 << *width;
        *width += 1;
        // A real stream never gets near this (the dictionary would need 2^30 entries).
        if *width > 30 {
            return Err(LzError::BadCode);
        }
    }
    Ok(())
}

/// Decodes `input` into UTF-16 code units, refusing to produce more than `max_units`.
pub fn decompress_uri(input: &str, max_units: usize) -> Result<Vec<u16>, LzError> {
    let vals = values(input)?;
    if vals.is_empty() {
        return Err(LzError::Empty);
    }
    let mut bits = Bits { vals: &vals, idx: 0, mask: 32 };
    let mut out: Vec<u16> = Vec::new();
    let first = match bits.read(2)? {
        0 => bits.read(8)?,
        1 => bits.read(16)?,
        2 => return Ok(out),
        _ => return Err(LzError::BadCode),
    };
    if max_units == 0 {
        return Err(LzError::TooLarge);
    }
    out.push(first as u16);
    // Entries as (start, len) in `out`; 0–2 are the reserved codes and never looked up.
    let mut dict: Vec<(usize, usize)> = vec![(0, 0), (0, 0), (0, 0), (0, 1)];
    let mut w = (0usize, 1usize);
    let mut width: u32 = 3;
    let mut enlarge_in: u64 = 4;
    loop {
        let code = bits.read(width)? as usize;
        let start = out.len();
        let len = match code {
            0 | 1 => {
                let unit = bits.read(if code == 0 { 8 } else { 16 })?;
                if out.len() >= max_units {
                    return Err(LzError::TooLarge);
                }
                out.push(unit as u16);
                dict.push((start, 1));
                enlarge_in -= 1;
                grow(&mut enlarge_in, &mut width)?;
                1
            }
            2 => return Ok(out),
            _ => {
                let (from, len) = if code < dict.len() {
                    dict[code]
                } else if code == dict.len() {
                    // The entry being defined: w followed by w's first unit.
                    (w.0, w.1 + 1)
                } else {
                    return Err(LzError::BadCode);
                };
                if out.len() + len > max_units {
                    return Err(LzError::TooLarge);
                }
                if code == dict.len() {
                    out.extend_from_within(from..from + w.1);
                    out.push(out[from]);
                } else {
                    out.extend_from_within(from..from + len);
                }
                len
            }
        };
        // w + first unit of this entry: contiguous, since this entry follows w in `out`.
        dict.push((w.0, w.1 + 1));
        enlarge_in -= 1;
        w = (start, len);
        grow(&mut enlarge_in, &mut width)?;
    }
}
