//! A minimal SQLite 3 database writer, for fixtures: rowid tables written row by row into leaf pages (with
//! overflow chains for long rows), then interior pages bottom-up, and `sqlite_schema` on page 1. What it
//! writes passes `sqlite3`'s `PRAGMA integrity_check` (tests/nsys.rs checks it where the CLI exists). No
//! indexes, no free pages, no journal. The schema's rows start on page 1 (a few dozen tables; a long
//! `CREATE TABLE` text goes on in overflow pages).

/// A value as stored in a record.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.to_string())
    }
}

/// A database being written: pages 2.. are appended as tables finish; page 1 is written last.
pub struct SqliteFile {
    page_size: usize,
    bytes: Vec<u8>,
    schema: Vec<(String, String, u32)>,
}

fn put_varint(out: &mut Vec<u8>, v: u64) {
    if v > 0x00ff_ffff_ffff_ffff {
        // Nine bytes: eight groups of seven bits, then a whole byte.
        let mut b = [0u8; 9];
        b[8] = v as u8;
        let mut r = v >> 8;
        for i in (0..8).rev() {
            b[i] = (r & 0x7f) as u8 | 0x80;
            r >>= 7;
        }
        out.extend_from_slice(&b);
        return;
    }
    let mut groups = Vec::with_capacity(9);
    let mut r = v;
    loop {
        groups.push((r & 0x7f) as u8);
        r >>= 7;
        if r == 0 {
            break;
        }
    }
    for (i, g) in groups.iter().rev().enumerate() {
        out.push(if i + 1 < groups.len() { g | 0x80 } else { *g });
    }
}

/// A record: header (its size, then each value's serial type), then the values.
pub fn encode_record(values: &[Value]) -> Vec<u8> {
    let mut types = Vec::new();
    let mut body = Vec::new();
    for v in values {
        match v {
            Value::Null => put_varint(&mut types, 0),
            Value::Int(0) => put_varint(&mut types, 8),
            Value::Int(1) => put_varint(&mut types, 9),
            Value::Int(i) => {
                let (t, n) = match *i {
                    i if i8::try_from(i).is_ok() => (1, 1),
                    i if i16::try_from(i).is_ok() => (2, 2),
                    i if (-(1 << 23)..(1 << 23)).contains(&i) => (3, 3),
                    i if i32::try_from(i).is_ok() => (4, 4),
                    i if (-(1 << 47)..(1 << 47)).contains(&i) => (5, 6),
                    _ => (6, 8),
                };
                put_varint(&mut types, t);
                body.extend_from_slice(&i.to_be_bytes()[8 - n..]);
            }
            Value::Real(f) => {
                put_varint(&mut types, 7);
                body.extend_from_slice(&f.to_be_bytes());
            }
            Value::Text(s) => {
                put_varint(&mut types, 13 + 2 * s.len() as u64);
                body.extend_from_slice(s.as_bytes());
            }
        }
    }
    // The header's size counts its own varint: one byte for any header under 127 bytes, else two.
    let mut header_len = types.len() + 1;
    if header_len > 127 {
        header_len += 1;
    }
    let mut out = Vec::with_capacity(header_len + body.len());
    put_varint(&mut out, header_len as u64);
    out.extend_from_slice(&types);
    out.extend_from_slice(&body);
    out
}

impl SqliteFile {
    /// An empty database with pages of `page_size` bytes (a power of two from 512 to 65536).
    pub fn new(page_size: usize) -> Self {
        assert!(page_size.is_power_of_two() && (512..=65536).contains(&page_size));
        SqliteFile { page_size, bytes: vec![0; page_size], schema: Vec::new() }
    }

    fn new_page(&mut self) -> (u32, usize) {
        let n = (self.bytes.len() / self.page_size) as u32 + 1;
        let at = self.bytes.len();
        self.bytes.resize(at + self.page_size, 0);
        (n, at)
    }

    /// Write `rest` of a record to an overflow chain; the first page's number. The chain is written back to
    /// front so each page knows the next.
    fn overflow(&mut self, rest: &[u8]) -> u32 {
        let ps = self.page_size;
        let chunks: Vec<&[u8]> = rest.chunks(ps - 4).collect();
        let mut next = 0u32;
        for c in chunks.iter().rev() {
            let (n, at) = self.new_page();
            self.bytes[at..at + 4].copy_from_slice(&next.to_be_bytes());
            self.bytes[at + 4..at + 4 + c.len()].copy_from_slice(c);
            next = n;
        }
        next
    }

    /// Start a table named `name` created by `sql` (a `CREATE TABLE` statement).
    pub fn table(&mut self, name: &str, sql: &str) -> TableWriter<'_> {
        TableWriter {
            file: self,
            name: name.to_string(),
            sql: sql.to_string(),
            cells: Vec::new(),
            cell_bytes: 0,
            last_rowid: 0,
            leaves: Vec::new(),
        }
    }

    /// Write a whole table at once; `rowid_column` names the `INTEGER PRIMARY KEY` column, if any.
    pub fn add_table(&mut self, name: &str, sql: &str, rowid_column: Option<usize>, rows: &[Vec<Value>]) {
        let mut t = self.table(name, sql);
        for r in rows {
            match rowid_column {
                Some(c) => {
                    let Value::Int(id) = r[c] else { panic!("rowid column holds no integer") };
                    let mut r = r.clone();
                    r[c] = Value::Null;
                    t.row_with_id(id, &r);
                }
                None => t.row(r),
            }
        }
        t.finish();
    }

    /// The file's bytes, with `sqlite_schema` on page 1.
    pub fn finish(mut self) -> Vec<u8> {
        let ps = self.page_size;
        let mut page1 = vec![0u8; ps];
        let schema = std::mem::take(&mut self.schema);
        let cells: Vec<Vec<u8>> = schema
            .iter()
            .enumerate()
            .map(|(i, (name, sql, root))| {
                let record = |sql: &str| {
                    encode_record(&[
                        "table".into(),
                        name.as_str().into(),
                        name.as_str().into(),
                        Value::Int(*root as i64),
                        sql.into(),
                    ])
                };
                // A record whose part kept on the page would not fit beside page 1's header: trailing spaces
                // (the same statement) move it to the next size, where less stays on the page.
                let mut sql = sql.clone();
                let mut rec = record(&sql);
                while local_bytes(rec.len(), ps) > ps - 200 {
                    sql.push(' ');
                    rec = record(&sql);
                }
                leaf_cell(i as i64 + 1, &rec, ps, &mut |rest| self.overflow(rest))
            })
            .collect();
        write_leaf(&mut page1, 100, &cells, ps);
        let pages = (self.bytes.len() / ps) as u32;
        let h = &mut page1[..100];
        h[..16].copy_from_slice(weft_readers::sqlite::MAGIC);
        h[16..18].copy_from_slice(&(if ps == 65536 { 1u16 } else { ps as u16 }).to_be_bytes());
        h[18] = 1;
        h[19] = 1;
        h[21] = 64;
        h[22] = 32;
        h[23] = 32;
        h[24..28].copy_from_slice(&1u32.to_be_bytes());
        h[28..32].copy_from_slice(&pages.to_be_bytes());
        h[40..44].copy_from_slice(&1u32.to_be_bytes());
        h[44..48].copy_from_slice(&4u32.to_be_bytes());
        h[56..60].copy_from_slice(&1u32.to_be_bytes());
        h[92..96].copy_from_slice(&1u32.to_be_bytes());
        h[96..100].copy_from_slice(&3_045_000u32.to_be_bytes());
        self.bytes[..ps].copy_from_slice(&page1);
        self.bytes
    }
}

/// How much of a table leaf's payload of `len` bytes stays on a page of `u` usable bytes (the file format's
/// rule; the rest goes to overflow pages).
fn local_bytes(len: usize, u: usize) -> usize {
    let x = u - 35;
    if len <= x {
        return len;
    }
    let m = ((u - 12) * 32 / 255) - 23;
    let k = m + (len - m) % (u - 4);
    if k <= x {
        k
    } else {
        m
    }
}

/// A leaf cell for `rowid` holding `rec`, spilling past what fits on the page into overflow pages made by
/// `overflow(content) -> page number`.
fn leaf_cell(rowid: i64, rec: &[u8], ps: usize, overflow: &mut dyn FnMut(&[u8]) -> u32) -> Vec<u8> {
    let mut cell = Vec::new();
    put_varint(&mut cell, rec.len() as u64);
    put_varint(&mut cell, rowid as u64);
    let local = local_bytes(rec.len(), ps);
    if local == rec.len() {
        cell.extend_from_slice(rec);
        return cell;
    }
    cell.extend_from_slice(&rec[..local]);
    cell.extend_from_slice(&overflow(&rec[local..]).to_be_bytes());
    cell
}

/// Lay out a leaf (`0x0d`) page's header at `h` and its cells packed at the page's end.
fn write_leaf(page: &mut [u8], h: usize, cells: &[Vec<u8>], ps: usize) {
    page[h] = 0x0d;
    write_cells(page, h, 8, cells, ps);
}

fn write_cells(page: &mut [u8], h: usize, header_len: usize, cells: &[Vec<u8>], ps: usize) {
    let mut end = ps;
    for (i, c) in cells.iter().enumerate() {
        end -= c.len();
        page[end..end + c.len()].copy_from_slice(c);
        let ptr = h + header_len + 2 * i;
        page[ptr..ptr + 2].copy_from_slice(&(end as u16).to_be_bytes());
    }
    assert!(h + header_len + 2 * cells.len() <= end, "cells overfill the page");
    page[h + 3..h + 5].copy_from_slice(&(cells.len() as u16).to_be_bytes());
    let start = if end == 65536 { 0 } else { end as u16 };
    page[h + 5..h + 7].copy_from_slice(&start.to_be_bytes());
}

/// One table's rows going into leaf pages.
pub struct TableWriter<'f> {
    file: &'f mut SqliteFile,
    name: String,
    sql: String,
    cells: Vec<Vec<u8>>,
    cell_bytes: usize,
    last_rowid: i64,
    /// Finished leaves: page number and largest rowid.
    leaves: Vec<(u32, i64)>,
}

impl TableWriter<'_> {
    /// Append a row with the next rowid.
    pub fn row(&mut self, values: &[Value]) {
        let id = self.last_rowid + 1;
        self.row_with_id(id, values);
    }

    /// Append a row with rowid `id` (larger than the last).
    pub fn row_with_id(&mut self, id: i64, values: &[Value]) {
        assert!(id > self.last_rowid || (self.cells.is_empty() && self.leaves.is_empty()));
        let rec = encode_record(values);
        let ps = self.file.page_size;
        let file = &mut *self.file;
        let cell = leaf_cell(id, &rec, ps, &mut |rest| file.overflow(rest));
        if 8 + 2 * (self.cells.len() + 1) + self.cell_bytes + cell.len() > ps {
            self.flush();
        }
        self.cell_bytes += cell.len();
        self.cells.push(cell);
        self.last_rowid = id;
    }

    fn flush(&mut self) {
        let (n, at) = self.file.new_page();
        let ps = self.file.page_size;
        write_leaf(&mut self.file.bytes[at..at + ps], 0, &self.cells, ps);
        self.leaves.push((n, self.last_rowid));
        self.cells.clear();
        self.cell_bytes = 0;
    }

    /// Write the last leaf and the interior pages over the leaves, and enter the table in the schema.
    pub fn finish(mut self) {
        if !self.cells.is_empty() || self.leaves.is_empty() {
            self.flush();
        }
        let ps = self.file.page_size;
        let mut level = std::mem::take(&mut self.leaves);
        while level.len() > 1 {
            let mut up = Vec::new();
            let mut i = 0;
            while i < level.len() {
                // As many children as fit: cells of (child, key), the last child as the right-most pointer.
                let mut cells: Vec<Vec<u8>> = Vec::new();
                let mut bytes = 0;
                let mut j = i;
                while j + 1 < level.len() {
                    let mut c = level[j].0.to_be_bytes().to_vec();
                    put_varint(&mut c, level[j].1 as u64);
                    if 12 + 2 * (cells.len() + 1) + bytes + c.len() > ps {
                        break;
                    }
                    bytes += c.len();
                    cells.push(c);
                    j += 1;
                }
                if j + 2 == level.len() && !cells.is_empty() {
                    // Leave two children for the last page rather than one (an interior page with no cells).
                    cells.pop();
                    j -= 1;
                }
                let right = level[j];
                let (n, at) = self.file.new_page();
                let page = &mut self.file.bytes[at..at + ps];
                page[0] = 0x05;
                page[8..12].copy_from_slice(&right.0.to_be_bytes());
                write_cells(page, 0, 12, &cells, ps);
                up.push((n, right.1));
                i = j + 1;
            }
            level = up;
        }
        let root = level[0].0;
        self.file.schema.push((self.name.clone(), self.sql.clone(), root));
    }
}
