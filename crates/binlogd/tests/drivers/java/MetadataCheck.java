// What Connector/J's DatabaseMetaData reports about a schema (tests/jdbc_metadata.rs runs it
// against binlogd and against a MariaDB server holding the same tables, and compares).
// Connector/J answers most DatabaseMetaData calls with information_schema queries
// (DatabaseMetaDataUsingInfoSchema, `useInformationSchema=true`) or with SHOW statements
// (the default), so both modes are printed: each runs the driver's own SQL, unmodified.
//
// Usage: MetadataCheck <port> <database> <infoschema: true|false>
// Output: one line per row of each call, "call | col=value | ...", the columns that name the
// schema's objects and their shapes (not those that differ by server product, such as remarks).

import java.sql.*;
import java.util.*;

public class MetadataCheck {
    static void dump(String call, ResultSet rs, String... cols) throws SQLException {
        List<String> lines = new ArrayList<>();
        while (rs.next()) {
            StringBuilder b = new StringBuilder(call);
            for (String c : cols) {
                b.append(" | ").append(c).append('=').append(rs.getString(c));
            }
            lines.add(b.toString());
        }
        rs.close();
        Collections.sort(lines);
        if (lines.isEmpty()) System.out.println(call + " | (no rows)");
        lines.forEach(System.out::println);
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String db = args[1];
        String url = "jdbc:mysql://127.0.0.1:" + port + "/" + db
                + "?user=root&password=&sslMode=DISABLED&allowPublicKeyRetrieval=true"
                + "&useInformationSchema=" + args[2] + "&nullDatabaseMeansCurrent=true";
        try (Connection c = DriverManager.getConnection(url)) {
            DatabaseMetaData m = c.getMetaData();
            dump("catalogs", m.getCatalogs(), "TABLE_CAT");
            dump("tables", m.getTables(db, null, "%", new String[] {"TABLE"}),
                    "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE");
            dump("columns", m.getColumns(db, null, "%", "%"), "TABLE_NAME", "COLUMN_NAME",
                    "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE",
                    "COLUMN_DEF", "ORDINAL_POSITION", "IS_NULLABLE", "IS_AUTOINCREMENT");
            for (String t : new String[] {"parent", "child", "kinds"}) {
                dump("primary " + t, m.getPrimaryKeys(db, null, t), "TABLE_NAME", "COLUMN_NAME",
                        "KEY_SEQ", "PK_NAME");
                dump("index " + t, m.getIndexInfo(db, null, t, false, false), "TABLE_NAME",
                        "NON_UNIQUE", "INDEX_NAME", "ORDINAL_POSITION", "COLUMN_NAME");
                dump("best " + t, m.getBestRowIdentifier(db, null, t,
                        DatabaseMetaData.bestRowSession, true), "COLUMN_NAME", "DATA_TYPE",
                        "TYPE_NAME");
                dump("imported " + t, m.getImportedKeys(db, null, t), "PKTABLE_NAME",
                        "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ");
            }
            ResultSet rs = c.createStatement().executeQuery("SELECT * FROM kinds ORDER BY id");
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                System.out.println("result " + md.getColumnName(i) + " " + md.getColumnTypeName(i)
                        + " " + md.getPrecision(i) + " " + md.getScale(i) + " "
                        + md.isNullable(i) + " " + md.isAutoIncrement(i));
            }
        }
    }
}
