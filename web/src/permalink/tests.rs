use super::lz::{decompress_uri, LzError, ALPHABET};
use super::*;
use proptest::prelude::*;

/// A link fragment whose state is `json`, compressed by the reference implementation.
fn pack_json(json: &str) -> String {
    format!("#s={}", lz_str::compress_to_encoded_uri_component(json))
}

fn example() -> Snapshot {
    Snapshot {
        file: Some("partial.bril".into()),
        func: Some("main".into()),
        view: Some("lcm".into()),
        pass: Some("lcm".into()),
        step: Some(7),
        expr: Some("add a b".into()),
        block: Some("join".into()),
        inst: Some(2),
        theme: Some("dark".into()),
        ..Snapshot::new("@main {\n  x: int = const 1;\n  print x;\n}\n", "bril")
    }
}

/// Writes an lz-string bit stream by hand: codes low bit first, 6 bits per character.
struct Writer {
    bits: Vec<bool>,
}

impl Writer {
    fn code(&mut self, value: u32, width: u32) {
        self.bits.extend((0..width).map(|i| value >> i & 1 == 1));
    }
    fn finish(self) -> String {
        self.bits
            .chunks(6)
            .map(|c| {
                let v = c.iter().enumerate().fold(0, |v, (i, &b)| v | (usize::from(b) << (5 - i)));
                ALPHABET[v] as char
            })
            .collect()
    }
}

/// A decompression bomb: one literal, then `n` codes that each name the entry being defined,
/// so entry k is k+1 units long and the output about n²/2 units; then the end code.
fn bomb(n: u32) -> String {
    let mut w = Writer { bits: Vec::new() };
    w.code(0, 2);
    w.code(u32::from(b'a'), 8);
    let (mut dict, mut width, mut enlarge_in) = (4u32, 3u32, 4u32);
    for _ in 0..n {
        w.code(dict, width);
        dict += 1;
        enlarge_in -= 1;
        if enlarge_in == 0 {
            enlarge_in = 1 << width;
            width += 1;
        }
    }
    w.code(2, width);
    w.finish()
}

#[test]
fn a_snapshot_survives_a_link() {
    let s = example();
    let frag = encode(&s).unwrap();
    assert!(frag.starts_with("#s="), "{frag}");
    assert_eq!(decode(&frag).unwrap(), s);
    // Without the `#` too (location.hash has it, some callers strip it).
    assert_eq!(decode(&frag[1..]).unwrap(), s);
}

#[test]
fn flags_are_plain_parts_and_not_in_the_state() {
    let s = Snapshot { lecture: true, exercise: true, ..example() };
    let frag = encode(&s).unwrap();
    assert!(frag.ends_with("&lecture&exercise"), "{frag}");
    let packed = frag.strip_prefix("#s=").unwrap().split('&').next().unwrap();
    let json = String::from_utf16(&decompress_uri(packed, MAX_JSON_UNITS).unwrap()).unwrap();
    assert!(!json.contains("lecture") && !json.contains("exercise"), "{json}");
    assert!(json.contains(r#""fn":"main""#), "short names: {json}");
    assert_eq!(decode(&frag).unwrap(), s);
}

#[test]
fn flags_can_be_added_by_hand() {
    let frag = encode(&example()).unwrap() + "&embed=cfg&lecture";
    let s = decode(&frag).unwrap();
    assert!(s.embed && s.lecture && !s.exercise);
    assert_eq!(s.view.as_deref(), Some("cfg"));
    let s = decode(&(encode(&example()).unwrap() + "&embed&lecture=0")).unwrap();
    assert!(s.embed && !s.lecture);
    assert_eq!(s.view.as_deref(), Some("lcm"), "a bare embed keeps the state's view");
}

#[test]
fn flags_without_a_state_and_stray_anchors() {
    let f = parse("#lecture").unwrap();
    assert_eq!(f.state, None);
    assert!(f.flags.lecture);
    for empty in ["", "#", "#top", "#&&", "#x=1&y"] {
        assert_eq!(parse(empty).unwrap(), Fragment::default(), "{empty:?}");
    }
    assert_eq!(decode("#lecture"), Err(LinkError::NoState));
    assert_eq!(decode("#s="), Err(LinkError::NoState));
    let two = format!("{}&{}", encode(&example()).unwrap(), &encode(&example()).unwrap()[1..]);
    assert_eq!(decode(&two), Err(LinkError::TwoStates));
}

#[test]
fn link_replaces_the_base_fragment() {
    let s = example();
    let l = link("https://example.org/lab/?q=1#s=old&lecture", &s).unwrap();
    assert!(l.starts_with("https://example.org/lab/?q=1#s="), "{l}");
    assert_eq!(decode(l.split_once('#').unwrap().1).unwrap(), s);
}

#[test]
fn escaped_characters_from_mail_programs_are_undone() {
    // Find a state whose packed form has a `$`, `+` or `-`, then escape them.
    let (frag, s) = (0..200)
        .map(|i| {
            let s = Snapshot::new(format!("program {i} ~~~ {}", "ab".repeat(i)), "sil");
            (encode(&s).unwrap(), s)
        })
        .find(|(f, _)| f.contains(['$', '+', '-']))
        .expect("some state packs to an escapable character");
    let escaped = frag.replace('$', "%24").replace('+', "%2B").replace('-', "%2d");
    assert_ne!(escaped, frag);
    assert_eq!(decode(&escaped).unwrap(), s);
    // A space is a `+` that a form decoder turned into a space.
    if frag.contains('+') {
        assert_eq!(decode(&frag.replace('+', " ")).unwrap(), s);
    }
}

#[test]
fn bad_versions_languages_json_and_text_are_refused() {
    let newer = pack_json(r#"{"v":2,"src":"","lang":"bril","new_field":[1]}"#);
    assert_eq!(decode(&newer), Err(LinkError::NewerVersion { found: 2 }));
    assert_eq!(decode(&pack_json(r#"{"v":0,"src":"","lang":"bril"}"#)), Err(LinkError::BadVersion { found: 0 }));
    assert!(matches!(decode(&pack_json(r#"{"src":"","lang":"bril"}"#)), Err(LinkError::BadJson(_))));
    assert!(matches!(decode(&pack_json("hello")), Err(LinkError::BadJson(_))));
    assert!(matches!(decode(&pack_json(r#"{"v":1,"lang":"bril"}"#)), Err(LinkError::BadJson(_))));
    assert!(matches!(decode(&pack_json(r#"{"v":1,"src":3,"lang":"bril"}"#)), Err(LinkError::BadJson(_))));
    assert_eq!(decode(&pack_json(r#"{"v":1,"src":"","lang":"c"}"#)), Err(LinkError::BadLang("c".into())));
    // Unknown fields of the same version are ignored (a newer build's optional extras).
    assert!(decode(&pack_json(r#"{"v":1,"src":"x","lang":"sil","extra":true}"#)).is_ok());
    // A lone surrogate: decompresses, but is not text.
    let lone: Vec<u16> = r#"{"v":1,"src":""#.encode_utf16().chain([0xd800]).chain(r#"","lang":"sil"}"#.encode_utf16()).collect();
    let frag = format!("#s={}", lz_str::compress_to_encoded_uri_component(lone));
    assert_eq!(decode(&frag), Err(LinkError::NotText));
}

#[test]
fn garbage_is_refused_with_a_message() {
    assert_eq!(decode("#s=hello world!"), Err(LinkError::BadCharacter { ch: '!' }));
    assert_eq!(decode("#s=ab\u{e9}"), Err(LinkError::BadCharacter { ch: '\u{e9}' }));
    // Code 3 as the first code: not a literal, not the end.
    assert_eq!(decode("#s=w"), Err(LinkError::Corrupt));
    for e in [LinkError::Corrupt, LinkError::Truncated, LinkError::NoState, LinkError::TooLarge { max: 1 }] {
        assert!(e.to_string().starts_with("This link"), "{e}");
    }
    assert_eq!(
        LinkError::TooLong { len: 1_234_567, max: 262_144 }.to_string(),
        "This link is too long to open (1,234,567 characters; the limit is 262,144)."
    );
    assert!(LinkError::TooLarge { max: 999 }.to_string().contains("more than 999 characters"));
}

#[test]
fn every_cut_of_a_link_is_refused() {
    let frag = encode(&example()).unwrap();
    let packed = &frag[3..];
    for len in 0..packed.len().saturating_sub(1) {
        let cut = format!("#s={}", &packed[..len]);
        assert!(decode(&cut).is_err(), "a link cut to {len} of {} characters opened", packed.len());
    }
    // The last character may be padding only; then the link still opens, and opens right.
    if let Ok(s) = decode(&frag[..frag.len() - 1]) {
        assert_eq!(s, example());
    }
}

#[test]
fn a_decompression_bomb_is_stopped_at_the_cap() {
    // The bomb really is one for the reference decoder: quadratic output.
    let small = lz_str::decompress_from_encoded_uri_component(&bomb(300)).unwrap();
    assert_eq!(small.len(), 1 + (2..=301).sum::<usize>());
    assert_eq!(decompress_uri(&bomb(300), usize::MAX).unwrap(), small);
    // 4,000 codes (under 8 KB of link) would unpack to 8 million units.
    let big = bomb(4000);
    assert!(big.len() < 8 * 1024, "{}", big.len());
    assert_eq!(decompress_uri(&big, MAX_JSON_UNITS), Err(LzError::TooLarge));
    assert_eq!(decode(&format!("#s={big}")), Err(LinkError::TooLarge { max: MAX_JSON_UNITS }));
}

#[test]
fn huge_programs_are_refused_both_ways() {
    // Incompressible: the link itself would be too long.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: String = (0..400_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b' ' + (x % 90) as u8)
        })
        .collect();
    assert!(matches!(encode(&Snapshot::new(noise, "bril")), Err(LinkError::TooLong { .. })));
    // Compressible but over the unpacked cap: refused when made, and when opened anyway.
    let big = "  x: int = add x one;\n".repeat(MAX_JSON_UNITS / 20);
    assert_eq!(encode(&Snapshot::new(big.clone(), "bril")), Err(LinkError::TooLarge { max: MAX_JSON_UNITS }));
    let frag = pack_json(&serde_json::to_string(&Snapshot::new(big, "bril")).unwrap());
    assert!(frag.len() < MAX_FRAGMENT);
    assert_eq!(decode(&frag), Err(LinkError::TooLarge { max: MAX_JSON_UNITS }));
    // A fragment over the length cap is refused before anything is decoded.
    let long = format!("#s={}", "A".repeat(MAX_FRAGMENT));
    assert_eq!(decode(&long), Err(LinkError::TooLong { len: MAX_FRAGMENT + 2, max: MAX_FRAGMENT }));
}

fn opt_text() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(any::<String>())
}

fn arb_snapshot() -> impl Strategy<Value = Snapshot> {
    (
        (any::<String>(), prop_oneof![Just("sil"), Just("bril")], opt_text(), opt_text(), opt_text(), opt_text()),
        (any::<Option<u32>>(), opt_text(), opt_text(), any::<Option<u32>>(), opt_text()),
        (any::<bool>(), any::<bool>(), any::<bool>()),
        (opt_text(), any::<Option<[u32; 2]>>(), opt_text()),
        (
            opt_text(),
            proptest::collection::btree_map(any::<String>(), any::<String>(), 0..3),
            proptest::collection::vec(any::<String>(), 0..3),
            any::<Option<bool>>(),
        ),
    )
        .prop_map(|((src, lang, file, func, view, pass), (step, expr, block, inst, theme), (lecture, embed, exercise), (pipe, stages, val), (ty, whatif, resilient, opaque))| {
            Snapshot {
                v: VERSION,
                src,
                lang: lang.into(),
                file,
                func,
                view,
                pass,
                pipe,
                stages,
                step,
                expr,
                block,
                inst,
                theme,
                lecture,
                embed,
                exercise,
                ty,
                whatif,
                resilient,
                opaque,
                val,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_snapshot_round_trips(s in arb_snapshot()) {
        let frag = encode(&s).unwrap();
        prop_assert_eq!(decode(&frag).unwrap(), s);
    }

    /// The bounded decoder reads what the reference compressor writes, for any UTF-16
    /// (lone surrogates included), and agrees with the reference decoder.
    #[test]
    fn decoder_inverts_the_reference_compressor(units in proptest::collection::vec(any::<u16>(), 0..400),
                                                 text in "[a-c ]{0,300}") {
        for input in [units, text.encode_utf16().collect()] {
            let packed = lz_str::compress_to_encoded_uri_component(input.clone());
            prop_assert_eq!(decompress_uri(&packed, usize::MAX).unwrap(), input.clone());
            prop_assert_eq!(lz_str::decompress_from_encoded_uri_component(&packed).unwrap(), input.clone());
            // The cap is exact: the full length fits, one unit less does not.
            if !input.is_empty() {
                prop_assert_eq!(decompress_uri(&packed, input.len()).unwrap(), input.clone());
                prop_assert_eq!(decompress_uri(&packed, input.len() - 1), Err(LzError::TooLarge));
            }
        }
    }

    /// On arbitrary streams the two decoders agree, except that the reference one fails when
    /// it reads the very last bit (it fetches the next character eagerly).
    #[test]
    fn decoder_agrees_with_the_reference_on_any_stream(stream in "[A-Za-z0-9+$-]{1,40}") {
        let mine = decompress_uri(&stream, usize::MAX);
        match lz_str::decompress_from_encoded_uri_component(&stream) {
            Some(theirs) => prop_assert_eq!(mine, Ok(theirs)),
            None => match mine {
                Ok(out) => {
                    let padded = format!("{stream}A");
                    prop_assert_eq!(lz_str::decompress_from_encoded_uri_component(&padded), Some(out));
                }
                Err(e) => prop_assert!(matches!(e, LzError::Truncated | LzError::BadCode), "{:?}", e),
            },
        }
    }

    /// Nothing a stranger can put in a fragment panics.
    #[test]
    fn hostile_fragments_never_panic(f in ".{0,200}", packed in "[A-Za-z0-9+$-]{0,300}") {
        let _ = parse(&f);
        let _ = parse(&format!("#s={packed}&lecture"));
        let _ = decode(&format!("s={f}"));
    }
}
