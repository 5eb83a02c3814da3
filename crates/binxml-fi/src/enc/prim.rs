//! The encoder's primitive encodings (Annex C): octets, identifying strings, integers and
//! lengths.

/// Appends `s` to `buf`. Strings of up to 64 octets (most names, values and chunks) are
/// copied by overlapping loads and stores, not by a call to `memcpy`, whose fixed cost per
/// call dominates for strings this short (and `extend_from_slice` is itself a call).
#[inline(always)]
pub(super) fn put(buf: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    let len = buf.len();
    if n <= 64 && buf.capacity() - len >= 64 {
        // SAFETY: the 64 octets after `len` are allocated (capacity checked), the stores
        // write within `len..len + n` (n <= 64), the loads read within `s`; the first `n` of
        // those octets are initialized before `set_len`.
        unsafe {
            let d = buf.as_mut_ptr().add(len);
            let p = s.as_ptr();
            if n >= 16 {
                let mut i = 0;
                while i + 16 < n {
                    (d.add(i) as *mut u128)
                        .write_unaligned((p.add(i) as *const u128).read_unaligned());
                    i += 16;
                }
                // the last 16 octets, overlapping the block before
                (d.add(n - 16) as *mut u128)
                    .write_unaligned((p.add(n - 16) as *const u128).read_unaligned());
            } else if n >= 8 {
                let a = (p as *const u64).read_unaligned();
                let b = (p.add(n - 8) as *const u64).read_unaligned();
                (d as *mut u64).write_unaligned(a);
                (d.add(n - 8) as *mut u64).write_unaligned(b);
            } else if n >= 4 {
                let a = (p as *const u32).read_unaligned();
                let b = (p.add(n - 4) as *const u32).read_unaligned();
                (d as *mut u32).write_unaligned(a);
                (d.add(n - 4) as *mut u32).write_unaligned(b);
            } else if n > 0 {
                *d = *p;
                *d.add(n / 2) = *p.add(n / 2);
                *d.add(n - 1) = *p.add(n - 1);
            }
            buf.set_len(len + n);
        }
    } else {
        put_long(buf, s);
    }
}

#[inline(never)]
pub(super) fn put_long(buf: &mut Vec<u8>, s: &[u8]) {
    buf.extend_from_slice(s);
}

/// Appends a few octets (an integer's or a length's encoding) with one store where the
/// buffer has room, not `extend_from_slice` (which the compiler left as a call).
#[inline(always)]
pub(super) fn put_arr<const N: usize>(buf: &mut Vec<u8>, a: [u8; N]) {
    let len = buf.len();
    if buf.capacity() - len >= N {
        // SAFETY: N octets after `len` are allocated (capacity checked) and written before
        // `set_len`.
        unsafe {
            (buf.as_mut_ptr().add(len) as *mut [u8; N]).write_unaligned(a);
            buf.set_len(len + N);
        }
    } else {
        buf.extend_from_slice(&a);
    }
}

/// Number of items of a sequence (C.21), 1..2^20.
pub(super) fn seq_len(buf: &mut Vec<u8>, n: usize) {
    if n <= 128 {
        buf.push((n - 1) as u8);
    } else {
        let m = n - 129;
        put_arr(
            buf,
            [0x80 | (m >> 16) as u8 & 0x0F, (m >> 8) as u8, m as u8],
        );
    }
}

/// Integer 1..2^20 starting on the 2nd bit (C.25 / C.26); `first` holds the first bit.
#[inline(always)]
pub(crate) fn int_2nd(buf: &mut Vec<u8>, first: u8, v: u32) {
    let i = v - 1;
    if i < 64 {
        buf.push(first | i as u8);
    } else if i < 8256 {
        let j = i - 64;
        put_arr(buf, [first | 0x40 | (j >> 8) as u8, j as u8]);
    } else {
        let j = i - 8256;
        put_arr(
            buf,
            [first | 0x60 | (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    }
}

/// Integer 1..2^20 starting on the 3rd bit (C.27).
#[inline(always)]
pub(crate) fn int_3rd(buf: &mut Vec<u8>, first: u8, v: u32) {
    let i = v - 1;
    if i < 32 {
        buf.push(first | i as u8);
    } else if i < 2080 {
        let j = i - 32;
        put_arr(buf, [first | 0x20 | (j >> 8) as u8, j as u8]);
    } else if i < 526_368 {
        let j = i - 2080;
        put_arr(
            buf,
            [first | 0x28 | (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    } else {
        let j = i - 526_368;
        put_arr(
            buf,
            [first | 0x30, (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    }
}

/// Integer 1..2^20 starting on the 4th bit (C.28).
#[inline(always)]
pub(crate) fn int_4th(buf: &mut Vec<u8>, first: u8, v: u32) {
    let i = v - 1;
    if i < 16 {
        buf.push(first | i as u8);
    } else if i < 1040 {
        let j = i - 16;
        put_arr(buf, [first | 0x10 | (j >> 8) as u8, j as u8]);
    } else if i < 263_184 {
        let j = i - 1040;
        put_arr(
            buf,
            [first | 0x14 | (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    } else {
        let j = i - 263_184;
        put_arr(
            buf,
            [first | 0x18, (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    }
}

/// Length of a non-empty octet string starting on the 2nd bit (C.22).
#[inline(always)]
pub(crate) fn len_2nd(buf: &mut Vec<u8>, first: u8, len: usize) {
    if len <= 64 {
        buf.push(first | (len - 1) as u8);
    } else if len <= 320 {
        put_arr(buf, [first | 0x40, (len - 65) as u8]);
    } else {
        buf.push(first | 0x60);
        put_arr(buf, ((len - 321) as u32).to_be_bytes());
    }
}

/// Length of a non-empty octet string starting on the 5th bit (C.23).
#[inline(always)]
pub(crate) fn len_5th(buf: &mut Vec<u8>, first: u8, len: usize) {
    if len <= 8 {
        buf.push(first | (len - 1) as u8);
    } else if len <= 264 {
        put_arr(buf, [first | 0x08, (len - 9) as u8]);
    } else {
        buf.push(first | 0x0C);
        put_arr(buf, ((len - 265) as u32).to_be_bytes());
    }
}

/// Length of a non-empty octet string starting on the 7th bit (C.24).
#[inline(always)]
pub(crate) fn len_7th(buf: &mut Vec<u8>, first: u8, len: usize) {
    if len <= 2 {
        buf.push(first | (len - 1) as u8);
    } else if len <= 258 {
        put_arr(buf, [first | 0x02, (len - 3) as u8]);
    } else {
        buf.push(first | 0x03);
        put_arr(buf, ((len - 259) as u32).to_be_bytes());
    }
}
