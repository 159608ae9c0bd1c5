//! The result type of the functions that return one of their arguments: CASE, IF, IFNULL,
//! COALESCE, GREATEST, LEAST (mysqld's `Item_func::aggregate_type` over
//! `Field::field_type_merge`, the `field_types_merge_rules` table of sql/field.cc).
//!
//! Why: the result's type decides how every argument's value is sent, so `CASE WHEN 0 THEN 1
//! ELSE 'abc' END` is the VARCHAR 'abc' and `IF(1, 1, 'abc')` the VARCHAR '1' in mysqld;
//! taking the first argument's type made them the integers 0 and 1.
//!
//! The merge kept (the cells of the table an expression can reach here): NULL is ignored;
//! equal types stay; integers merge to the widest of them; a DOUBLE/FLOAT among numbers makes
//! DOUBLE, else a DECIMAL makes DECIMAL; two different temporal kinds (DATE, TIME, DATETIME,
//! TIMESTAMP) make DATETIME; any string, or a temporal value with a number, is VARCHAR (a
//! BLOB among strings makes BLOB); JSON with JSON stays JSON, JSON with anything else is
//! VARCHAR (LONGTEXT).

use crate::output::MysqlType;

fn is_int(t: MysqlType) -> bool {
    matches!(
        t,
        MysqlType::Tiny
            | MysqlType::Short
            | MysqlType::Long
            | MysqlType::Int24
            | MysqlType::LongLong
            | MysqlType::Year
            | MysqlType::Bit
    )
}

fn is_number(t: MysqlType) -> bool {
    is_int(t) || matches!(t, MysqlType::Double | MysqlType::Float | MysqlType::NewDecimal)
}

fn is_string(t: MysqlType) -> bool {
    matches!(t, MysqlType::VarString | MysqlType::String | MysqlType::Blob)
}

/// The merged type of the arguments' types (`Item_func::aggregate_type`).
pub(crate) fn aggregate(types: &[MysqlType]) -> MysqlType {
    let ts: Vec<MysqlType> = types.iter().copied().filter(|t| *t != MysqlType::Null).collect();
    let Some(&first) = ts.first() else { return MysqlType::Null };
    if ts.iter().all(|t| *t == first) {
        return if is_string(first) && first != MysqlType::Blob {
            MysqlType::VarString
        } else {
            first
        };
    }
    if ts.iter().all(|t| is_int(*t)) {
        // field_types_merge_rules: integers merge to the widest (TINY < SHORT < INT24 <
        // LONG < LONGLONG; YEAR counts as TINY, BIT as LONGLONG).
        let rank = |t: &MysqlType| match t {
            MysqlType::Tiny | MysqlType::Year => 1,
            MysqlType::Short => 2,
            MysqlType::Int24 => 3,
            MysqlType::Long => 4,
            _ => 5,
        };
        let widest = ts.iter().max_by_key(|t| rank(t)).copied().unwrap_or(MysqlType::LongLong);
        return if widest == MysqlType::Year || widest == MysqlType::Bit {
            if widest == MysqlType::Year {
                MysqlType::Tiny
            } else {
                MysqlType::LongLong
            }
        } else {
            widest
        };
    }
    if ts.iter().all(|t| is_number(*t)) {
        return if ts.iter().any(|t| matches!(t, MysqlType::Double | MysqlType::Float)) {
            MysqlType::Double
        } else {
            MysqlType::NewDecimal
        };
    }
    // Temporal kinds that differ merge to DATETIME (field_types_merge_rules: DATE with TIME,
    // DATETIME or TIMESTAMP, and TIME with DATETIME or TIMESTAMP, are DATETIME).
    let temporal = |t: &MysqlType| {
        matches!(t, MysqlType::Date | MysqlType::DateTime | MysqlType::Timestamp | MysqlType::Time)
    };
    if ts.iter().all(temporal) {
        return MysqlType::DateTime;
    }
    if ts.contains(&MysqlType::Blob) || ts.contains(&MysqlType::Json) {
        return MysqlType::Blob;
    }
    MysqlType::VarString
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_as_mysqld() {
        use MysqlType::*;
        assert_eq!(aggregate(&[LongLong, VarString]), VarString);
        assert_eq!(aggregate(&[Null, LongLong]), LongLong);
        assert_eq!(aggregate(&[LongLong, NewDecimal]), NewDecimal);
        assert_eq!(aggregate(&[NewDecimal, Double]), Double);
        assert_eq!(aggregate(&[Long, LongLong]), LongLong);
        assert_eq!(aggregate(&[Long, Tiny]), Long);
        assert_eq!(aggregate(&[Short, Tiny, Int24]), Int24);
        assert_eq!(aggregate(&[Year, Tiny]), Tiny);
        assert_eq!(aggregate(&[Bit, Tiny]), LongLong);
        assert_eq!(aggregate(&[Date, DateTime]), DateTime);
        assert_eq!(aggregate(&[Date, Time]), DateTime);
        assert_eq!(aggregate(&[Time, Timestamp]), DateTime);
        assert_eq!(aggregate(&[Time, Null, Time]), Time);
        assert_eq!(aggregate(&[Date, Date]), Date);
        assert_eq!(aggregate(&[Timestamp, Timestamp]), Timestamp);
        assert_eq!(aggregate(&[Time, LongLong]), VarString);
        assert_eq!(aggregate(&[Date, LongLong]), VarString);
        assert_eq!(aggregate(&[Null, Null]), Null);
        assert_eq!(aggregate(&[Json, Json]), Json);
    }
}
