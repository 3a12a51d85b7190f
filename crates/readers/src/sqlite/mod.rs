//! A read-only SQLite database file reader (https://www.sqlite.org/fileformat.html), in plain Rust so it
//! builds for wasm32-unknown-unknown without a C toolchain: the header, `sqlite_schema`, and the rows of a
//! named rowid table, walked from its root page (table interior and leaf pages, varint records, overflow
//! chains).
//!
//! The bytes are hostile: every page number is checked against the file, every page is visited at most once
//! per walk (a cycle in child or overflow pointers ends the walk with an error, it never loops), a payload
//! is never longer than the file, and a record's header never reaches past its payload. Errors carry the
//! byte offset in the file.
//!
//! What it does not do: write, SQL, indexes, WITHOUT ROWID tables, a WAL file beside the database (only what
//! was checkpointed into the main file is read), or knowing what any table means (the Nsight mapping is in
//! `readers::nsys`).

mod record;
mod schema;

pub use record::Record;
pub use schema::{columns_of, Column};

/// A row of a table: its values by column index (from [`Table::column`]; `None` reads as NULL), with the
/// rowid in place of the `INTEGER PRIMARY KEY` column.
pub struct Row<'r, 'p> {
    pub rowid: i64,
    pub record: &'r Record<'p>,
    alias: Option<usize>,
}

impl Row<'_, '_> {
    pub fn int(&self, column: Option<usize>) -> Option<i64> {
        let c = column?;
        if Some(c) == self.alias {
            return Some(self.rowid);
        }
        self.record.int(c)
    }
    pub fn real(&self, column: Option<usize>) -> Option<f64> {
        let c = column?;
        if Some(c) == self.alias {
            return Some(self.rowid as f64);
        }
        self.record.real(c)
    }
    pub fn text(&self, column: Option<usize>) -> Option<std::borrow::Cow<'_, str>> {
        self.record.text(column?)
    }
}

/// The 16 bytes every SQLite 3 database file starts with.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// What went wrong, and at which byte of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteError {
    pub offset: u64,
    pub detail: String,
}

impl SqliteError {
    fn at(offset: usize, detail: impl Into<String>) -> Self {
        SqliteError { offset: offset as u64, detail: detail.into() }
    }
}

/// How text is stored in the database (header byte 56).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    Utf8,
    Utf16Le,
    Utf16Be,
}

/// One row of `sqlite_schema`.
#[derive(Clone, Debug)]
pub struct SchemaEntry {
    /// "table", "index", "view" or "trigger".
    pub kind: String,
    pub name: String,
    pub root_page: u32,
    pub sql: String,
}

/// A database file held in memory.
pub struct Database<'a> {
    bytes: &'a [u8],
    page_size: usize,
    usable: usize,
    pages: u32,
    encoding: TextEncoding,
    schema: Vec<SchemaEntry>,
}

/// A table found in the schema: where its rows are and what its columns are called.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub root_page: u32,
    pub columns: Vec<Column>,
    /// The columns' indices in the order of their names (ASCII case-insensitive, stable): readers look columns
    /// up by name for every row, and a `CREATE TABLE` of 100,000 columns made a linear search quadratic
    /// (issue 51); a binary search allocates nothing.
    by_name: Vec<usize>,
}

/// `a` against `b`, ASCII case-insensitive.
fn cmp_no_case(a: &str, b: &str) -> std::cmp::Ordering {
    a.bytes().map(|c| c.to_ascii_lowercase()).cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

impl Table {
    /// A table of these columns, indexed by name.
    pub fn new(name: String, root_page: u32, columns: Vec<Column>) -> Self {
        let mut by_name: Vec<usize> = (0..columns.len()).collect();
        by_name.sort_by(|&a, &b| cmp_no_case(&columns[a].name, &columns[b].name));
        Table { name, root_page, columns, by_name }
    }

    /// The index of the column named `name` (ASCII case-insensitive, as SQL compares names; the first of two
    /// of one name).
    pub fn column(&self, name: &str) -> Option<usize> {
        let at = self.by_name.partition_point(|&i| cmp_no_case(&self.columns[i].name, name).is_lt());
        let &i = self.by_name.get(at)?;
        self.columns[i].name.eq_ignore_ascii_case(name).then_some(i)
    }
}

impl<'a> Database<'a> {
    /// Check the header and read the schema.
    pub fn open(bytes: &'a [u8]) -> Result<Self, SqliteError> {
        if bytes.len() < 100 || &bytes[..16] != MAGIC {
            return Err(SqliteError::at(0, "not an SQLite 3 database (no \"SQLite format 3\" header)"));
        }
        let raw = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
        let page_size = if raw == 1 { 65536 } else { raw };
        if !(512..=65536).contains(&page_size) || !page_size.is_power_of_two() {
            return Err(SqliteError::at(16, format!("page size {raw} is not a power of two from 512 to 65536")));
        }
        let reserved = bytes[20] as usize;
        let usable = page_size - reserved;
        if usable < 480 {
            return Err(SqliteError::at(20, format!("{reserved} reserved bytes leave {usable} usable (< 480)")));
        }
        let encoding = match u32::from_be_bytes([bytes[56], bytes[57], bytes[58], bytes[59]]) {
            0 | 1 => TextEncoding::Utf8,
            2 => TextEncoding::Utf16Le,
            3 => TextEncoding::Utf16Be,
            e => return Err(SqliteError::at(56, format!("unknown text encoding {e}"))),
        };
        // The file's length is the authority on how many pages there are (the header's count may be stale).
        let pages = u32::try_from(bytes.len() / page_size).unwrap_or(u32::MAX);
        let mut db = Database { bytes, page_size, usable, pages, encoding, schema: Vec::new() };
        db.schema = db.read_schema()?;
        Ok(db)
    }

    pub fn page_size(&self) -> usize {
        self.page_size
    }

    pub fn page_count(&self) -> u32 {
        self.pages
    }

    pub fn encoding(&self) -> TextEncoding {
        self.encoding
    }

    /// Every row of `sqlite_schema`.
    pub fn schema(&self) -> &[SchemaEntry] {
        &self.schema
    }

    /// The rowid table named `name` (ASCII case-insensitive), with its columns parsed from its SQL; None when
    /// there is no such table.
    pub fn table(&self, name: &str) -> Option<Table> {
        let e = self.schema.iter().find(|e| e.kind == "table" && e.name.eq_ignore_ascii_case(name))?;
        Some(Table::new(e.name.clone(), e.root_page, columns_of(&e.sql)))
    }

    /// The names of all tables.
    pub fn table_names(&self) -> impl Iterator<Item = &str> {
        self.schema.iter().filter(|e| e.kind == "table").map(|e| e.name.as_str())
    }

    fn read_schema(&self) -> Result<Vec<SchemaEntry>, SqliteError> {
        let mut out = Vec::new();
        self.scan(1, |_, r| {
            let text = |i: usize| r.text(i).map(|s| s.into_owned()).unwrap_or_default();
            let root = r.int(3).unwrap_or(0);
            out.push(SchemaEntry {
                kind: text(0),
                name: text(1),
                root_page: u32::try_from(root).unwrap_or(0),
                sql: text(4),
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// Call `f(row)` for every row of `table`, in rowid order (see [`Database::scan`]).
    pub fn rows<F>(&self, table: &Table, mut f: F) -> Result<(), SqliteError>
    where
        F: FnMut(&Row) -> Result<(), SqliteError>,
    {
        let alias = table.columns.iter().position(|c| c.rowid_alias);
        self.scan(table.root_page, |rowid, record| f(&Row { rowid, record, alias }))
    }

    /// Byte offset of page `n` (1-based), checked.
    fn page(&self, n: u32, from: usize) -> Result<(usize, &'a [u8]), SqliteError> {
        if n == 0 || n > self.pages {
            return Err(SqliteError::at(from, format!("page number {n} is outside the file's {} pages", self.pages)));
        }
        let start = (n as usize - 1) * self.page_size;
        Ok((start, &self.bytes[start..start + self.page_size]))
    }

    /// Call `f(rowid, record)` for every row of the rowid table whose b-tree starts at `root`, in rowid order.
    /// Each page is visited at most once: a cycle or a shared child is an error, never a loop.
    pub fn scan<F>(&self, root: u32, mut f: F) -> Result<(), SqliteError>
    where
        F: FnMut(i64, &Record) -> Result<(), SqliteError>,
    {
        let mut seen = vec![0u64; (self.pages as usize + 64) / 64];
        let mut mark = |n: u32, from: usize| -> Result<(), SqliteError> {
            let (w, b) = (n as usize / 64, n as usize % 64);
            if seen[w] & (1 << b) != 0 {
                return Err(SqliteError::at(from, format!("page {n} is reached twice (a cycle in the b-tree)")));
            }
            seen[w] |= 1 << b;
            Ok(())
        };
        let mut payload_buf: Vec<u8> = Vec::new();
        let mut cols: Vec<(u64, usize)> = Vec::new();
        // Pages still to visit, the next child last (so rows come in rowid order).
        let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
        while let Some((n, from)) = stack.pop() {
            let (base, page) = self.page(n, from)?;
            // Page 1 holds the 100-byte file header before its b-tree page header.
            let h = if n == 1 { 100 } else { 0 };
            let kind = page[h];
            let (header_len, interior) = match kind {
                0x0d => (8, false),
                0x05 => (12, true),
                0x02 | 0x0a => {
                    return Err(SqliteError::at(base + h, format!("page {n} is an index b-tree page, not a table's")))
                }
                k => return Err(SqliteError::at(base + h, format!("page {n} has b-tree page type {k:#04x}"))),
            };
            mark(n, from)?;
            if h + header_len > self.usable {
                return Err(SqliteError::at(base + h, "page header past the page"));
            }
            let cells = u16::from_be_bytes([page[h + 3], page[h + 4]]) as usize;
            let ptrs = h + header_len;
            if ptrs + 2 * cells > self.usable {
                return Err(SqliteError::at(base + h + 3, format!("page {n} claims {cells} cells, more than fit")));
            }
            let cell_at = |i: usize| -> Result<usize, SqliteError> {
                let p = u16::from_be_bytes([page[ptrs + 2 * i], page[ptrs + 2 * i + 1]]) as usize;
                if p < ptrs + 2 * cells || p >= self.usable {
                    return Err(SqliteError::at(base + ptrs + 2 * i, format!("cell pointer {p} outside page {n}")));
                }
                Ok(p)
            };
            if interior {
                let right = u32::from_be_bytes([page[h + 8], page[h + 9], page[h + 10], page[h + 11]]);
                stack.push((right, base + h + 8));
                for i in (0..cells).rev() {
                    let p = cell_at(i)?;
                    if p + 4 > self.usable {
                        return Err(SqliteError::at(base + p, "interior cell past the page"));
                    }
                    let child = u32::from_be_bytes([page[p], page[p + 1], page[p + 2], page[p + 3]]);
                    stack.push((child, base + p));
                }
                continue;
            }
            for i in 0..cells {
                let p = cell_at(i)?;
                let (size, a) =
                    varint(&page[..self.usable], p).ok_or_else(|| SqliteError::at(base + p, "cell size"))?;
                let (rowid, b) =
                    varint(&page[..self.usable], a).ok_or_else(|| SqliteError::at(base + a, "cell rowid"))?;
                let payload = self.payload(n, base, page, b, size, &mut payload_buf, &mut mark)?;
                let payload: &[u8] = match payload {
                    Some(local) => local,
                    None => &payload_buf,
                };
                let rec = Record::parse(payload, &mut cols, self.encoding)
                    .map_err(|d| SqliteError::at(base + b, format!("page {n} cell {i}: {d}")))?;
                f(rowid as i64, &rec)?;
            }
        }
        Ok(())
    }

    /// The payload of a leaf cell whose content starts at `at` in `page`: borrowed (`Some`) when it is all on
    /// the page, else gathered from its overflow chain into `buf` (`None`).
    #[allow(clippy::too_many_arguments)]
    fn payload<'p>(
        &self,
        n: u32,
        base: usize,
        page: &'p [u8],
        at: usize,
        size: u64,
        buf: &mut Vec<u8>,
        mark: &mut impl FnMut(u32, usize) -> Result<(), SqliteError>,
    ) -> Result<Option<&'p [u8]>, SqliteError> {
        let u = self.usable;
        if size > self.bytes.len() as u64 {
            return Err(SqliteError::at(base + at, format!("payload of {size} bytes is larger than the file")));
        }
        let size = size as usize;
        let x = u - 35;
        if size <= x {
            if at + size > u {
                return Err(SqliteError::at(base + at, format!("payload of {size} bytes runs past page {n}")));
            }
            return Ok(Some(&page[at..at + size]));
        }
        let m = ((u - 12) * 32 / 255) - 23;
        let k = m + (size - m) % (u - 4);
        let local = if k <= x { k } else { m };
        if at + local + 4 > u {
            return Err(SqliteError::at(base + at, format!("payload runs past page {n}")));
        }
        buf.clear();
        buf.extend_from_slice(&page[at..at + local]);
        let mut next =
            u32::from_be_bytes([page[at + local], page[at + local + 1], page[at + local + 2], page[at + local + 3]]);
        let mut from = base + at + local;
        while buf.len() < size {
            let (obase, opage) = self.page(next, from)?;
            mark(next, from)?;
            let take = (size - buf.len()).min(u - 4);
            buf.extend_from_slice(&opage[4..4 + take]);
            from = obase;
            next = u32::from_be_bytes([opage[0], opage[1], opage[2], opage[3]]);
        }
        Ok(None)
    }
}

/// A SQLite varint at `at`: 1 to 9 bytes, big-endian, seven bits a byte (all eight in the ninth). Returns the
/// value and the offset after it; None when it runs past `bytes`.
pub(crate) fn varint(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..9 {
        let b = *bytes.get(at + i)?;
        if i == 8 {
            return Some(((v << 8) | b as u64, at + 9));
        }
        v = (v << 7) | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            return Some((v, at + i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests;
