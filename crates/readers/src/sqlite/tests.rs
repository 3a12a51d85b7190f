use super::*;
use weft_samples::sqlite::{encode_record, SqliteFile, Value};

fn db_with(rows: usize, text_len: usize) -> Vec<u8> {
    let mut f = SqliteFile::new(512);
    let rows: Vec<Vec<Value>> = (0..rows)
        .map(|i| {
            vec![
                Value::Int(i as i64 * 7 - 3),
                Value::Real(i as f64 / 2.0),
                Value::Text(format!("{i}:{}", "x".repeat(text_len))),
                Value::Null,
            ]
        })
        .collect();
    f.add_table("t", "CREATE TABLE t (a INTEGER, b REAL, c TEXT, d INTEGER)", None, &rows);
    f.add_table(
        "s",
        "CREATE TABLE s (id INTEGER PRIMARY KEY, v TEXT)",
        Some(0),
        &[vec![Value::Int(42), "answer".into()], vec![Value::Int(1 << 40), "big".into()]],
    );
    f.finish()
}

fn all_rows(bytes: &[u8], table: &str) -> Result<Vec<(i64, Vec<String>)>, SqliteError> {
    let db = Database::open(bytes)?;
    let t = db.table(table).expect("table");
    let mut out = Vec::new();
    db.rows(&t, |r| {
        let vals = (0..t.columns.len())
            .map(|c| {
                if let Some(s) = r.text(Some(c)) {
                    s.into_owned()
                } else if r.record.is_null(c) && Some(c) != t.columns.iter().position(|c| c.rowid_alias) {
                    "NULL".into()
                } else if let Some(i) = r.int(Some(c)).filter(|_| c != 1) {
                    i.to_string()
                } else {
                    format!("{:?}", r.real(Some(c)))
                }
            })
            .collect();
        out.push((r.rowid, vals));
        Ok(())
    })?;
    Ok(out)
}

#[test]
fn varints_and_integers_round_trip() {
    for v in [0u64, 1, 127, 128, 16383, 16384, 1 << 35, (1 << 56) - 1, 1 << 56, u64::MAX] {
        let rec = encode_record(&[Value::Int(v as i64)]);
        let mut cols = Vec::new();
        let r = Record::parse(&rec, &mut cols, TextEncoding::Utf8).unwrap();
        assert_eq!(r.int(0), Some(v as i64));
    }
    let mut cols = Vec::new();
    for i in [-1i64, -128, 127, -32769, 1 << 23, -(1 << 23) - 1, 1 << 40, -(1 << 47), i64::MIN, i64::MAX] {
        let rec = encode_record(&[Value::Int(i), Value::Real(-2.5), Value::Text("é".into())]);
        let r = Record::parse(&rec, &mut cols, TextEncoding::Utf8).unwrap();
        assert_eq!((r.int(0), r.real(1), r.text(2).as_deref()), (Some(i), Some(-2.5), Some("é")));
        assert!(r.is_null(3) && r.int(3).is_none());
    }
    assert_eq!(varint(&[0xff; 9], 0), Some((u64::MAX, 9)));
    assert_eq!(varint(&[0x81, 0x00], 0), Some((128, 2)));
    assert_eq!(varint(&[0x81], 0), None);
}

#[test]
fn reads_rows_across_interior_and_overflow_pages() {
    // 300 rows on 512-byte pages: several leaves under interior pages; 2000-byte texts overflow.
    for (rows, len) in [(0, 0), (1, 3), (300, 10), (40, 2000)] {
        let bytes = db_with(rows, len);
        let got = all_rows(&bytes, "t").unwrap();
        assert_eq!(got.len(), rows);
        for (i, (rowid, v)) in got.iter().enumerate() {
            assert_eq!(*rowid, i as i64 + 1);
            assert_eq!(v[0], (i as i64 * 7 - 3).to_string());
            assert_eq!(v[1], format!("{:?}", Some(i as f64 / 2.0)));
            assert_eq!(v[2], format!("{i}:{}", "x".repeat(len)));
            assert_eq!(v[3], "NULL");
        }
        let s = all_rows(&bytes, "s").unwrap();
        assert_eq!(
            s,
            vec![(42, vec!["42".into(), "answer".into()]), (1 << 40, vec![(1i64 << 40).to_string(), "big".into()])]
        );
    }
    let bytes = db_with(3, 1);
    let db = Database::open(&bytes).unwrap();
    assert_eq!(db.table_names().collect::<Vec<_>>(), ["t", "s"]);
    assert!(db.table("T").is_some() && db.table("u").is_none());
    assert_eq!(db.table("t").unwrap().column("C"), Some(2));
}

#[test]
fn hostile_pages_give_errors_not_loops() {
    let good = db_with(300, 10);
    let ps = 512;
    let db = Database::open(&good).unwrap();
    let root = db.table("t").unwrap().root_page as usize;
    let root_at = (root - 1) * ps;
    assert_eq!(good[root_at], 0x05, "the table needs an interior root for this test");

    // The right-most child pointing back at the root: a cycle.
    let mut cyc = good.clone();
    cyc[root_at + 8..root_at + 12].copy_from_slice(&(root as u32).to_be_bytes());
    let e = all_rows(&cyc, "t").unwrap_err();
    assert!(e.detail.contains("reached twice"), "{e:?}");

    // A child page number past the file.
    let mut far = good.clone();
    far[root_at + 8..root_at + 12].copy_from_slice(&999_999u32.to_be_bytes());
    let e = all_rows(&far, "t").unwrap_err();
    assert!(e.detail.contains("outside the file") && e.offset == (root_at + 8) as u64, "{e:?}");

    // Too many cells claimed.
    let mut many = good.clone();
    many[root_at + 3..root_at + 5].copy_from_slice(&5000u16.to_be_bytes());
    assert!(all_rows(&many, "t").unwrap_err().detail.contains("cells"));

    // An overflow chain that loops on itself.
    let over = db_with(2, 2000);
    let db = Database::open(&over).unwrap();
    let t = db.table("t").unwrap();
    // Find the first overflow page: a page whose first 4 bytes name another overflow page (or 0).
    let mut looped = 0;
    for n in 2..=db.page_count() {
        let at = (n as usize - 1) * ps;
        let next = u32::from_be_bytes(over[at..at + 4].try_into().unwrap());
        if next != 0 && next != n && over[at] != 0x0d && over[at] != 0x05 && next <= db.page_count() {
            let mut bad = over.clone();
            bad[at..at + 4].copy_from_slice(&n.to_be_bytes());
            let r = all_rows(&bad, "t");
            assert!(r.is_err(), "a looping overflow chain must be refused");
            looped += 1;
        }
    }
    assert!(looped > 0, "no overflow chain found in {} pages (root {})", db.page_count(), t.root_page);

    // Bad headers.
    let mut size = good.clone();
    size[16..18].copy_from_slice(&1000u16.to_be_bytes());
    assert_eq!(Database::open(&size).err().unwrap().offset, 16);
    let mut enc = good.clone();
    enc[56..60].copy_from_slice(&9u32.to_be_bytes());
    assert_eq!(Database::open(&enc).err().unwrap().offset, 56);
    assert!(Database::open(b"SQLite format 3\0").is_err());
}

#[test]
fn any_truncation_or_byte_flip_ends_cleanly() {
    let good = db_with(60, 300);
    let read_all = |b: &[u8]| -> Result<usize, SqliteError> {
        let db = Database::open(b)?;
        let mut n = 0;
        for t in ["t", "s"] {
            if let Some(t) = db.table(t) {
                db.rows(&t, |r| {
                    for c in 0..r.record.len() {
                        let _ = (r.text(Some(c)), r.int(Some(c)), r.real(Some(c)));
                    }
                    n += 1;
                    Ok(())
                })?;
            }
        }
        Ok(n)
    };
    assert_eq!(read_all(&good).unwrap(), 62);
    for cut in (0..good.len()).step_by(97) {
        let _ = read_all(&good[..cut]);
    }
    let mut rng = weft_samples::rng::XorShift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let mut b = good.clone();
        for _ in 0..4 {
            let i = (rng.below(b.len() as u64)) as usize;
            b[i] = rng.next() as u8;
        }
        let _ = read_all(&b);
    }
}
