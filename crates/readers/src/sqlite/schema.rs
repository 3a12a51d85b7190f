//! Column names from a table's `CREATE TABLE` text, as `sqlite_schema` keeps it (columns added later by
//! `ALTER TABLE ADD COLUMN` are appended to that text by SQLite). Just enough SQL to name the columns in
//! order and find the rowid alias (`INTEGER PRIMARY KEY`): comments, quoted names, and parentheses and
//! strings inside column definitions are skipped over.

/// A column of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    /// `INTEGER PRIMARY KEY`: the column is the rowid, and the record holds NULL in its place.
    pub rowid_alias: bool,
}

/// Remove `-- ...` and `/* ... */` comments (outside quotes).
fn strip_comments(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                out.push(c);
            }
            '[' => {
                quote = Some(']');
                out.push(c);
            }
            '-' if chars.peek() == Some(&'-') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            c => out.push(c),
        }
    }
    out
}

/// Split the text between the outer parentheses at top-level commas.
fn definitions(sql: &str) -> Vec<String> {
    let Some(open) = sql.find('(') else { return Vec::new() };
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for c in sql[open + 1..].chars() {
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                cur.push(c);
            }
            '[' => {
                quote = Some(']');
                cur.push(c);
            }
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                return out;
            }
            ')' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The first token of a definition, unquoted, and what follows it.
fn first_token(def: &str) -> (String, &str) {
    let d = def.trim_start();
    let close = match d.chars().next() {
        Some('"') => Some('"'),
        Some('`') => Some('`'),
        Some('[') => Some(']'),
        Some('\'') => Some('\''),
        _ => None,
    };
    if let Some(q) = close {
        let body = &d[1..];
        let end = body.find(q).unwrap_or(body.len());
        let rest = body.get(end + 1..).unwrap_or("");
        return (body[..end].to_string(), rest);
    }
    let end = d.find(|c: char| c.is_whitespace() || c == '(').unwrap_or(d.len());
    (d[..end].to_string(), &d[end..])
}

/// The columns of a `CREATE TABLE` statement, in order.
pub fn columns_of(sql: &str) -> Vec<Column> {
    let sql = strip_comments(sql);
    let mut out = Vec::new();
    for def in definitions(&sql) {
        let (name, rest) = first_token(&def);
        let upper = name.to_ascii_uppercase();
        if name.is_empty() || ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(&upper.as_str()) {
            continue;
        }
        let words: Vec<String> = rest.split_whitespace().map(|w| w.to_ascii_uppercase()).collect();
        let is_integer = words.first().is_some_and(|w| w == "INTEGER");
        let pk = words.windows(2).any(|w| w[0] == "PRIMARY" && w[1] == "KEY");
        let desc = words.iter().any(|w| w == "DESC");
        out.push(Column { name, rowid_alias: is_integer && pk && !desc });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_columns_and_the_rowid_alias() {
        let sql = "CREATE TABLE StringIds (\n    -- Consolidation, of values.\n\n    id INTEGER NOT NULL PRIMARY KEY, -- ID (x)\n    value TEXT NOT NULL -- String, value.\n)";
        let c = columns_of(sql);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0], Column { name: "id".into(), rowid_alias: true });
        assert_eq!(c[1], Column { name: "value".into(), rowid_alias: false });
        let sql =
            "CREATE TABLE \"a b\" ([x y] REAL DEFAULT (1,2), `z` TEXT CHECK (z <> ','), k INTEGER REFERENCES T(id), \
                   PRIMARY KEY (k), CONSTRAINT c UNIQUE (z)\n, name TEXT)";
        let names: Vec<String> = columns_of(sql).into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["x y", "z", "k", "name"]);
        assert!(columns_of("CREATE TABLE t").is_empty());
    }
}
