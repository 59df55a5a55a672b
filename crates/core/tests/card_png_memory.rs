//! A PNG character card can hold compressed text chunks that inflate to
//! hundreds of MiB (a zlib bomb). Reading a card must never inflate more
//! than its card chunk's stated limit, whatever else the image holds: these
//! tests count every byte the process allocates while one card is read.
//!
//! The allocator is global to this test binary, so the tests here take a
//! lock and run one at a time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use base64::Engine;
use narratoria_core::scenario::CharacterCard;

/// Counts the bytes allocated now and the most allocated at once.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn grew(by: usize) {
    let now = NOW.fetch_add(by, Ordering::SeqCst) + by;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                NOW.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `f` returned, and the most bytes it had allocated at once beyond
/// what was allocated when it started.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = NOW.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let out = f();
    (out, PEAK.load(Ordering::SeqCst).saturating_sub(base))
}

/// A zlib stream that inflates to `mib` MiB of `A`: one compressed MiB
/// (ending on a sync flush, so on a byte boundary) repeated, then an empty
/// final block and the Adler-32 of the whole.
fn zlib_bomb(mib: usize) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    const MIB: usize = 1 << 20;
    let input = vec![b'A'; MIB];
    let mut block = Vec::with_capacity(64 * 1024);
    let mut deflate = Compress::new(Compression::best(), false);
    deflate
        .compress_vec(&input, &mut block, FlushCompress::Sync)
        .unwrap();
    assert_eq!(deflate.total_in() as usize, MIB, "one MiB compressed whole");
    let mut out = vec![0x78, 0xDA];
    for _ in 0..mib {
        out.extend_from_slice(&block);
    }
    out.extend_from_slice(&[0x03, 0x00]);
    // Adler-32 of n bytes all `v`: a = 1 + n·v, b = n + v·n(n+1)/2 (mod 65521).
    let (n, v, m) = ((mib * MIB) as u128, u128::from(b'A'), 65_521u128);
    let a = (1 + n * v) % m;
    let b = (n + v * (n * (n + 1) / 2)) % m;
    out.extend_from_slice(&(((b << 16) | a) as u32).to_be_bytes());
    out
}

/// An iTXt chunk's data: `keyword`, compressed, holding `zlib`.
fn itxt(keyword: &str, zlib: &[u8]) -> Vec<u8> {
    let mut data = keyword.as_bytes().to_vec();
    data.extend_from_slice(&[0, 1, 0, 0, 0]);
    data.extend_from_slice(zlib);
    data
}

/// A 1×1 PNG with these text chunks (kind, data) before its image data.
fn png_with(raw: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 1, 1);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        for (kind, data) in raw {
            w.write_chunk(png::chunk::ChunkType(**kind), data).unwrap();
        }
        w.write_image_data(&[200, 100, 50, 255]).unwrap();
        w.finish().unwrap();
    }
    out
}

fn card_text() -> Vec<u8> {
    let card = serde_json::json!({"name": "Old Tom", "description": "A ferryman.", "first_mes": "Fare's a copper."});
    let mut data = b"chara\0".to_vec();
    data.extend_from_slice(
        base64::engine::general_purpose::STANDARD
            .encode(card.to_string())
            .as_bytes(),
    );
    data
}

/// The most a card read may allocate at once: the 8 MiB the card chunk may
/// inflate to, twice over while its buffer grows, with room for the rest.
const BOUND: usize = 48 << 20;

#[test]
fn a_card_chunk_that_inflates_past_its_limit_is_refused_within_bounded_memory() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bomb = zlib_bomb(256);
    let png = png_with(&[
        (b"iTXt", itxt("Comment", &bomb)),
        (b"iTXt", itxt("chara", &bomb)),
    ]);
    let (read, peak) = peak_of(|| CharacterCard::from_bytes(&png));
    let err = read.expect_err("a bomb is no card").to_string();
    assert!(
        err.contains("`chara`") && err.contains("8388608 bytes"),
        "the message names the chunk and the limit: {err}"
    );
    assert!(peak < BOUND, "reading the card took {} MiB", peak >> 20);
}

#[test]
fn a_card_beside_a_bomb_in_another_chunk_reads_within_bounded_memory() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let png = png_with(&[
        (b"tEXt", card_text()),
        (b"iTXt", itxt("Comment", &zlib_bomb(256))),
    ]);
    let (read, peak) = peak_of(|| CharacterCard::from_bytes(&png));
    assert_eq!(read.expect("the card reads").name, "Old Tom");
    assert!(peak < BOUND, "reading the card took {} MiB", peak >> 20);
}

/// Prints what reading a 255 KiB card whose `chara` chunk is a zlib bomb
/// costs (run with `--ignored --nocapture`).
#[test]
#[ignore = "a measurement; prints figures"]
fn measure_a_255_kib_card_bomb() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bomb = zlib_bomb(256);
    let png = png_with(&[(b"iTXt", itxt("chara", &bomb))]);
    let started = Instant::now();
    let (read, peak) = peak_of(|| CharacterCard::from_bytes(&png));
    println!(
        "a {} KiB PNG whose `chara` chunk inflates to 256 MiB: {:?}, at most {} MiB allocated at once; {}",
        png.len() >> 10,
        started.elapsed(),
        peak >> 20,
        match read {
            Ok(c) => format!("read as {:?}", c.name),
            Err(e) => e.to_string(),
        }
    );
}
