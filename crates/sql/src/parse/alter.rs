//! The grammar of `ALTER TABLE`, `RENAME TABLE` and `CREATE TABLE ... LIKE` (mysqld's
//! `alter_table_stmt` / `alter_list_item`, `rename` and `create_table_stmt ... LIKE` rules in
//! sql_yacc.yy), read token by token: sqlparser's ALTER TABLE grammar knows neither MySQL's
//! table options nor `CONVERT TO CHARACTER SET`, `ADD COLUMN (a, b)` or the `IF EXISTS`
//! forms. Column definitions are sqlparser's (`parse_column_def`) converted by
//! `column_spec`, as CREATE TABLE's are, so a column means the same in both statements.
//!
//! Foreign-key clauses (`ADD [CONSTRAINT [sym]] FOREIGN KEY ...` read by sqlparser's
//! `parse_optional_table_constraint`, `DROP FOREIGN KEY sym`, `DROP CONSTRAINT sym`) are read
//! here too: an ALTER made only of them becomes [`Stmt::AlterForeignKeys`] (the metadata-only
//! foreign key DDL of `foreign_keys.rs`), a mixed one keeps them as operations of the one
//! ALTER (`ddl/alter.rs`).

use sqlparser::tokenizer::Token;

use super::{column_spec, parse_error, unsupported, Front};
use crate::ast::{
    foreign_key_clauses_only, AlterOp, ColumnPosition, ColumnSpec, IndexSpec, Stmt, TableRef,
};
use crate::error::{Result, SqlError};

impl Front<'_> {
    /// True if the statement starts with `ALTER TABLE` (without consuming).
    pub(super) fn alter_table_ahead(&self) -> bool {
        self.nth_word(0, "ALTER") && self.nth_word(1, "TABLE")
    }

    fn nth_word(&self, n: usize, w: &str) -> bool {
        matches!(&self.parser.peek_nth_token(n).token,
            Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    }

    /// `ALTER TABLE t op [, op ...]`.
    pub(super) fn alter_table(&mut self) -> Result<Stmt> {
        self.expect_word("ALTER")?;
        self.expect_word("TABLE")?;
        let table = self.table_name()?;
        let mut ops = Vec::new();
        if self.at_end() {
            return Ok(Stmt::AlterTable { table, ops });
        }
        loop {
            self.alter_op(&mut ops)?;
            if !self.parser.consume_token(&Token::Comma) {
                break;
            }
        }
        if !self.at_end() {
            return Err(self.error_here());
        }
        let ops = match foreign_key_clauses_only(ops) {
            Ok((add, drop)) => return Ok(Stmt::AlterForeignKeys { table, add, drop }),
            Err(ops) => ops,
        };
        Ok(Stmt::AlterTable { table, ops })
    }

    /// True if `ADD` is followed by `[CONSTRAINT [sym]] FOREIGN` (without consuming).
    fn foreign_key_ahead(&self) -> bool {
        self.nth_word(0, "FOREIGN")
            || (self.nth_word(0, "CONSTRAINT")
                && (self.nth_word(1, "FOREIGN") || self.nth_word(2, "FOREIGN")))
    }

    fn opt_eq(&mut self) {
        let _ = self.parser.consume_token(&Token::Eq);
    }

    fn position(&mut self) -> Result<Option<ColumnPosition>> {
        if self.word("FIRST") {
            return Ok(Some(ColumnPosition::First));
        }
        if self.word("AFTER") {
            return Ok(Some(ColumnPosition::After(self.ident()?)));
        }
        Ok(None)
    }

    /// A column definition; its CHECK constraints become ADD CHECK operations in `ops`.
    fn column_def(&mut self, ops: &mut Vec<AlterOp>) -> Result<ColumnSpec> {
        let def = self.parser.parse_column_def().map_err(|e| parse_error(self.sql, &e))?;
        for o in &def.options {
            if let sqlparser::ast::ColumnOption::Check(e) = &o.option {
                let name = o.name.as_ref().map(|n| n.value.clone());
                let column = Some(def.name.value.clone());
                ops.push(AlterOp::AddCheck(self.check_spec(name, e, None, column)?));
            }
        }
        column_spec(&def)
    }

    /// `(col [ASC|DESC], ...)` and the index options after it (a COMMENT dropped: the
    /// primary key keeps none).
    fn key_parts(&mut self) -> Result<Vec<String>> {
        let (cols, prefixes, _) = self.key_parts_commented()?;
        if !prefixes.is_empty() {
            // As CREATE TABLE (`parse::primary_key_columns`).
            return Err(unsupported("prefixes in a PRIMARY KEY"));
        }
        Ok(cols)
    }

    /// [`Self::key_parts`] with their prefix lengths (`c(10)`; empty when none has one) and
    /// the index's `COMMENT 'text'` (the last one given, as mysqld).
    #[allow(clippy::type_complexity)]
    fn key_parts_commented(&mut self) -> Result<(Vec<String>, Vec<Option<u64>>, String)> {
        if !self.parser.consume_token(&Token::LParen) {
            return Err(self.error_here());
        }
        let mut cols = Vec::new();
        let mut prefixes = Vec::new();
        loop {
            if self.parser.peek_token().token == Token::LParen {
                return Err(unsupported("functional key parts"));
            }
            cols.push(self.ident()?);
            if self.parser.consume_token(&Token::LParen) {
                prefixes.push(Some(self.uint()?));
                if !self.parser.consume_token(&Token::RParen) {
                    return Err(self.error_here());
                }
            } else {
                prefixes.push(None);
            }
            let _ = self.word("ASC") || self.word("DESC");
            if !self.parser.consume_token(&Token::Comma) {
                break;
            }
        }
        if !self.parser.consume_token(&Token::RParen) {
            return Err(self.error_here());
        }
        // index_option: USING BTREE|HASH, COMMENT 'x', VISIBLE, KEY_BLOCK_SIZE=n.
        let mut comment = String::new();
        loop {
            if self.word("USING") {
                self.ident()?;
            } else if self.word("COMMENT") {
                comment = self.string()?;
            } else if self.word("VISIBLE") {
            } else if self.word("INVISIBLE") {
                return Err(unsupported("INVISIBLE indexes"));
            } else if self.word("KEY_BLOCK_SIZE") {
                self.opt_eq();
                self.uint()?;
            } else {
                break;
            }
        }
        if prefixes.iter().all(Option::is_none) {
            prefixes.clear();
        }
        Ok((cols, prefixes, comment))
    }

    /// An optional index name before the key parts (`USING type` may follow it).
    fn index_name(&mut self) -> Result<Option<String>> {
        if self.parser.peek_token().token == Token::LParen {
            return Ok(None);
        }
        if self.word("USING") {
            self.ident()?;
            return Ok(None);
        }
        let name = self.ident()?;
        if self.word("USING") {
            self.ident()?;
        }
        Ok(Some(name))
    }

    fn if_exists(&mut self) -> bool {
        self.words(&["IF", "EXISTS"])
    }

    fn alter_op(&mut self, ops: &mut Vec<AlterOp>) -> Result<()> {
        if self.word("ADD") {
            return self.alter_add(ops);
        }
        if self.word("DROP") {
            let op = if self.words(&["PRIMARY", "KEY"]) {
                AlterOp::DropPrimaryKey
            } else if self.words(&["FOREIGN", "KEY"]) {
                AlterOp::DropForeignKey(self.ident()?)
            } else if self.word("INDEX") || self.word("KEY") {
                let if_exists = self.if_exists();
                AlterOp::DropIndex { name: self.ident()?, if_exists }
            } else if self.word("CONSTRAINT") {
                // mysqld 8.0.19+: drops the constraint of that name, whichever kind it is
                // (resolved against the table when the ALTER runs).
                AlterOp::DropConstraint(self.ident()?)
            } else if self.word("CHECK") {
                AlterOp::DropCheck(self.ident()?)
            } else {
                self.word("COLUMN");
                let if_exists = self.if_exists();
                AlterOp::DropColumn { name: self.ident()?, if_exists }
            };
            ops.push(op);
            return Ok(());
        }
        if self.word("MODIFY") {
            self.word("COLUMN");
            let spec = self.column_def(ops)?;
            let position = self.position()?;
            let old = spec.column.name.clone();
            ops.push(AlterOp::ChangeColumn { old, spec, position });
            return Ok(());
        }
        if self.word("CHANGE") {
            self.word("COLUMN");
            let old = self.ident()?;
            let spec = self.column_def(ops)?;
            let position = self.position()?;
            ops.push(AlterOp::ChangeColumn { old, spec, position });
            return Ok(());
        }
        if self.word("RENAME") {
            let op = if self.word("COLUMN") {
                let old = self.ident()?;
                self.expect_word("TO")?;
                AlterOp::RenameColumn { old, new: self.ident()? }
            } else if self.word("INDEX") || self.word("KEY") {
                let old = self.ident()?;
                self.expect_word("TO")?;
                AlterOp::RenameIndex { old, new: self.ident()? }
            } else {
                let _ = self.word("TO") || self.word("AS");
                AlterOp::RenameTable(self.table_name()?)
            };
            ops.push(op);
            return Ok(());
        }
        if self.word("ALTER") {
            if self.word("INDEX") {
                return Err(unsupported("ALTER INDEX ... VISIBLE/INVISIBLE"));
            }
            if self.word("CHECK") || self.word("CONSTRAINT") {
                let name = self.ident()?;
                let enforced = !self.word("NOT");
                if !self.word("ENFORCED") {
                    return Err(self.error_here());
                }
                ops.push(AlterOp::AlterCheck { name, enforced });
                return Ok(());
            }
            self.word("COLUMN");
            let column = self.ident()?;
            if self.words(&["DROP", "DEFAULT"]) {
                ops.push(AlterOp::SetDefault { column, default: None });
                return Ok(());
            }
            self.expect_word("SET")?;
            if self.word("VISIBLE") || self.word("INVISIBLE") {
                return Err(unsupported("invisible columns"));
            }
            if !self.peek_word("DEFAULT") {
                return Err(self.error_here());
            }
            // `DEFAULT v` read as a column option; the value is converted to the column's
            // type when the ALTER runs (the spec's own type is a placeholder).
            let option = self
                .parser
                .parse_optional_column_option()
                .map_err(|e| parse_error(self.sql, &e))?
                .ok_or_else(|| self.error_here())?;
            let def = sqlparser::ast::ColumnDef {
                name: sqlparser::ast::Ident::new(column.clone()),
                data_type: sqlparser::ast::DataType::Text,
                options: vec![sqlparser::ast::ColumnOptionDef { name: None, option }],
            };
            let spec = column_spec(&def)?;
            ops.push(AlterOp::SetDefault { column, default: Some(Box::new(spec)) });
            return Ok(());
        }
        if self.words(&["CONVERT", "TO"]) {
            if !(self.words(&["CHARACTER", "SET"]) || self.word("CHARSET")) {
                return Err(self.error_here());
            }
            let charset = Some(self.name_or_string()?);
            let collate = if self.word("COLLATE") { Some(self.name_or_string()?) } else { None };
            ops.push(AlterOp::Charset { charset, collate, convert: true });
            return Ok(());
        }
        if self.word("DISABLE") || self.word("ENABLE") {
            self.expect_word("KEYS")?;
            ops.push(AlterOp::Accepted);
            return Ok(());
        }
        if self.word("FORCE") {
            ops.push(AlterOp::Accepted);
            return Ok(());
        }
        // Table options (`create_table_option`) and ALGORITHM / LOCK.
        self.word("DEFAULT");
        if self.words(&["CHARACTER", "SET"]) || self.word("CHARSET") {
            self.opt_eq();
            let charset = Some(self.name_or_string()?);
            ops.push(AlterOp::Charset { charset, collate: None, convert: false });
            return Ok(());
        }
        if self.word("COLLATE") {
            self.opt_eq();
            let collate = Some(self.name_or_string()?);
            ops.push(AlterOp::Charset { charset: None, collate, convert: false });
            return Ok(());
        }
        if self.word("AUTO_INCREMENT") {
            self.opt_eq();
            ops.push(AlterOp::AutoIncrement(self.uint()?));
            return Ok(());
        }
        if self.word("ENGINE") {
            self.opt_eq();
            let engine = self.name_or_string()?;
            if !engine.eq_ignore_ascii_case("InnoDB") {
                // mysqld with NO_ENGINE_SUBSTITUTION (in the default sql_mode): 1286.
                return Err(SqlError::Other {
                    code: 1286,
                    sqlstate: "42000",
                    message: format!("Unknown storage engine '{engine}'"),
                });
            }
            ops.push(AlterOp::Accepted);
            return Ok(());
        }
        if self.word("COMMENT") {
            self.opt_eq();
            ops.push(AlterOp::Comment(self.string()?));
            return Ok(());
        }
        for opt in ["ROW_FORMAT", "ALGORITHM", "LOCK", "STATS_PERSISTENT", "CHECKSUM"] {
            if self.word(opt) {
                self.opt_eq();
                match self.parser.next_token().token {
                    Token::Word(_) | Token::SingleQuotedString(_) | Token::Number(..) => {}
                    _ => {
                        self.parser.prev_token();
                        return Err(self.error_here());
                    }
                }
                ops.push(AlterOp::Accepted);
                return Ok(());
            }
        }
        Err(self.error_here())
    }

    fn alter_add(&mut self, ops: &mut Vec<AlterOp>) -> Result<()> {
        let check_ahead = self.nth_word(0, "CHECK")
            || (self.nth_word(0, "CONSTRAINT")
                && (self.nth_word(1, "CHECK") || self.nth_word(2, "CHECK")));
        if check_ahead {
            let con = self
                .parser
                .parse_optional_table_constraint()
                .map_err(|e| parse_error(self.sql, &e))?
                .ok_or_else(|| self.error_here())?;
            let sqlparser::ast::TableConstraint::Check { name, expr, enforced } = con else {
                return Err(self.error_here());
            };
            let name = name.map(|n| n.value);
            ops.push(AlterOp::AddCheck(self.check_spec(name, &expr, enforced, None)?));
            return Ok(());
        }
        if self.foreign_key_ahead() {
            let con = self
                .parser
                .parse_optional_table_constraint()
                .map_err(|e| parse_error(self.sql, &e))?
                .ok_or_else(|| self.error_here())?;
            ops.push(AlterOp::AddForeignKey(crate::fk_syntax::fk_spec(&con)?));
            return Ok(());
        }
        let mut constraint = false;
        if self.word("CONSTRAINT") {
            constraint = true;
            if !(self.peek_word("PRIMARY")
                || self.peek_word("UNIQUE")
                || self.peek_word("FOREIGN")
                || self.peek_word("CHECK"))
            {
                self.ident()?;
            }
        }
        if self.words(&["PRIMARY", "KEY"]) {
            self.index_name()?;
            ops.push(AlterOp::AddPrimaryKey(self.key_parts()?));
            return Ok(());
        }
        if self.word("UNIQUE") {
            let _ = self.word("INDEX") || self.word("KEY");
            let name = self.index_name()?;
            let (columns, prefixes, comment) = self.key_parts_commented()?;
            let unique = true;
            ops.push(AlterOp::AddIndex(IndexSpec { name, columns, prefixes, unique, comment }));
            return Ok(());
        }
        if self.word("CHECK") {
            return Err(unsupported("CHECK constraints"));
        }
        if constraint {
            return Err(self.error_here());
        }
        if self.word("INDEX") || self.word("KEY") {
            let name = self.index_name()?;
            let (columns, prefixes, comment) = self.key_parts_commented()?;
            let unique = false;
            ops.push(AlterOp::AddIndex(IndexSpec { name, columns, prefixes, unique, comment }));
            return Ok(());
        }
        if self.word("FULLTEXT") || self.word("SPATIAL") {
            return Err(unsupported("FULLTEXT and SPATIAL indexes"));
        }
        self.word("COLUMN");
        if self.parser.consume_token(&Token::LParen) {
            loop {
                let spec = self.column_def(ops)?;
                ops.push(AlterOp::AddColumn { spec, position: None });
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            if !self.parser.consume_token(&Token::RParen) {
                return Err(self.error_here());
            }
            return Ok(());
        }
        let spec = self.column_def(ops)?;
        let position = self.position()?;
        ops.push(AlterOp::AddColumn { spec, position });
        Ok(())
    }

    /// True if the statement is `RENAME {TABLE | TABLES} ...`.
    pub(super) fn rename_tables_ahead(&self) -> bool {
        self.nth_word(0, "RENAME") && (self.nth_word(1, "TABLE") || self.nth_word(1, "TABLES"))
    }

    /// `RENAME {TABLE | TABLES} a TO b [, c TO d ...]`.
    pub(super) fn rename_tables(&mut self) -> Result<Stmt> {
        self.expect_word("RENAME")?;
        if !(self.word("TABLE") || self.word("TABLES")) {
            return Err(self.error_here());
        }
        let mut pairs = Vec::new();
        loop {
            let from = self.table_name()?;
            self.expect_word("TO")?;
            pairs.push((from, self.table_name()?));
            if !self.parser.consume_token(&Token::Comma) {
                break;
            }
        }
        if !self.at_end() {
            return Err(self.error_here());
        }
        Ok(Stmt::RenameTables(pairs))
    }

    /// True if the statement is `CREATE TABLE [IF NOT EXISTS] t {LIKE s | (LIKE s)}`.
    pub(super) fn create_like_ahead(&self) -> bool {
        if !(self.nth_word(0, "CREATE") && self.nth_word(1, "TABLE")) {
            return false;
        }
        let mut n = if self.nth_word(2, "IF") { 5 } else { 2 };
        n += 1;
        if self.parser.peek_nth_token(n).token == Token::Period {
            n += 2;
        }
        self.nth_word(n, "LIKE")
            || (self.parser.peek_nth_token(n).token == Token::LParen
                && self.nth_word(n + 1, "LIKE"))
    }

    /// `CREATE TABLE [IF NOT EXISTS] t {LIKE s | (LIKE s)}`.
    pub(super) fn create_like(&mut self) -> Result<Stmt> {
        self.expect_word("CREATE")?;
        self.expect_word("TABLE")?;
        let if_not_exists = self.words(&["IF", "NOT", "EXISTS"]);
        let table: TableRef = self.table_name()?;
        let paren = self.parser.consume_token(&Token::LParen);
        self.expect_word("LIKE")?;
        let like = self.table_name()?;
        if paren && !self.parser.consume_token(&Token::RParen) {
            return Err(self.error_here());
        }
        if !self.at_end() {
            return Err(self.error_here());
        }
        Ok(Stmt::CreateTableLike { table, like, if_not_exists })
    }
}
