// MySQL Connector/J and the MariaDB Java client against a server (tests/drivers_java.rs runs it
// against binlogd and against a MariaDB server, with `java -cp <jars> DriverCheck.java`).
//
// Usage: DriverCheck <mysql|mariadb> <port> <socket> <types.tsv> <phase,...> [user password]...
// Phases:
//   conn   connect over TCP (RSA key exchange or fast path for caching_sha2), TLS and the Unix
//          socket as each account given after the phases (user password pairs);
//   types  round-trip every row of types.tsv through text and server-side prepared statements
//          and print the driver's ResultSetMetaData for both ("meta" lines);
//   pool   what pools and frameworks do: connection-time settings, COM_RESET_CONNECTION,
//          COM_PING and isValid, transactions, batches, cursor fetch, concurrent use.
// Output: one line per finding; a line starting with FAIL makes the exit status 1.

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.*;
import java.time.LocalDateTime;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

public class DriverCheck {
    static String driver;
    static int port;
    static String socket;
    static int failures = 0;

    record Col(String name, String sqlType, String kind, String value) {}

    static List<Col> cols = new ArrayList<>();

    static void fail(String what) {
        failures++;
        System.out.println("FAIL " + what);
    }

    static void check(boolean ok, String what) {
        if (!ok) fail(what);
    }

    static void eq(Object got, Object want, String what) {
        if (!Objects.equals(got, want)) fail(what + ": got <" + got + "> want <" + want + ">");
    }

    /** A JDBC URL for a transport: tcp, tls or socket. */
    static String url(String transport, String user, String password, String extra) {
        StringBuilder u = new StringBuilder();
        boolean mysql = driver.equals("mysql");
        u.append(mysql ? "jdbc:mysql://" : "jdbc:mariadb://");
        u.append(transport.equals("socket") ? "localhost" : "127.0.0.1:" + port);
        u.append("/?user=").append(user).append("&password=").append(password);
        u.append("&allowPublicKeyRetrieval=true&useServerPrepStmts=true&connectTimeout=10000");
        if (mysql) {
            u.append("&characterEncoding=UTF-8");
            switch (transport) {
                case "tls" -> u.append("&sslMode=REQUIRED");
                case "socket" -> u.append("&sslMode=DISABLED")
                        .append("&socketFactory=org.newsclub.net.mysql.AFUNIXDatabaseSocketFactoryCJ")
                        .append("&junixsocket.file=").append(socket);
                default -> u.append("&sslMode=DISABLED");
            }
        } else {
            switch (transport) {
                case "tls" -> u.append("&sslMode=trust");
                case "socket" -> u.append("&localSocket=").append(socket);
                default -> u.append("&sslMode=disable");
            }
        }
        return u.append(extra).toString();
    }

    static Connection connect(String transport, String user, String password, String extra)
            throws SQLException {
        return DriverManager.getConnection(url(transport, user, password, extra));
    }

    static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    static String status(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE '" + name + "'")) {
            return rs.next() ? rs.getString(2) : null;
        }
    }

    // ---- conn ----------------------------------------------------------------------------------

    static void conn(List<String[]> accounts) throws Exception {
        for (String[] account : accounts) {
            // tcp twice: the first caching_sha2 login of an account is a full authentication
            // (RSA key exchange without TLS), the second takes the fast path.
            for (String transport : new String[] {"tcp", "tcp", "tls", "socket"}) {
                try (Connection c = connect(transport, account[0], account[1], "")) {
                    String user = one(c, "SELECT CURRENT_USER()");
                    String cipher = status(c, "Ssl_cipher");
                    String version = status(c, "Ssl_version");
                    boolean tls = cipher != null && !cipher.isEmpty();
                    eq(tls, transport.equals("tls"), account[0] + " " + transport + " Ssl_cipher");
                    eq(version != null && !version.isEmpty(), tls,
                            account[0] + " " + transport + " Ssl_version");
                    System.out.println("conn " + account[0] + " " + transport + " " + user
                            + " tls=" + tls);
                } catch (SQLException e) {
                    fail("connect " + account[0] + " " + transport + ": " + e);
                }
            }
        }
    }

    // ---- types ---------------------------------------------------------------------------------

    static String literal(Col c) {
        return switch (c.kind) {
            case "string", "datetime" ->
                    "'" + c.value.replace("\\", "\\\\").replace("'", "''") + "'";
            default -> c.value;
        };
    }

    static int sqlType(Col c) {
        return switch (c.kind) {
            case "int", "uint" -> Types.BIGINT;
            case "bool" -> Types.BOOLEAN;
            case "decimal" -> Types.DECIMAL;
            case "double" -> Types.DOUBLE;
            case "datetime" -> Types.TIMESTAMP;
            default -> Types.VARCHAR;
        };
    }

    static void bind(PreparedStatement ps, int i, Col c) throws SQLException {
        switch (c.kind) {
            case "int" -> ps.setLong(i, Long.parseLong(c.value));
            case "uint" -> {
                BigInteger v = new BigInteger(c.value);
                if (v.bitLength() < 63) ps.setLong(i, v.longValue());
                else ps.setBigDecimal(i, new BigDecimal(v));
            }
            case "bool" -> ps.setBoolean(i, !c.value.equals("0"));
            case "decimal" -> ps.setBigDecimal(i, new BigDecimal(c.value));
            case "double" -> ps.setDouble(i, Double.parseDouble(c.value));
            case "datetime" -> ps.setObject(i, LocalDateTime.parse(c.value.replace(' ', 'T')));
            case "string" -> ps.setString(i, c.value);
            default -> throw new IllegalArgumentException("kind " + c.kind);
        }
    }

    /** The value read back, in the text form of types.tsv. */
    static String canonical(ResultSet rs, int i, Col c) throws SQLException {
        Object o = rs.getObject(i);
        if (o == null) return null;
        return switch (c.kind) {
            case "bool" -> o instanceof Boolean b ? (b ? "1" : "0") : o.toString();
            case "decimal" -> ((BigDecimal) o).toPlainString();
            case "double" -> Double.parseDouble(c.value) == ((Number) o).doubleValue()
                    ? c.value : o.toString();
            case "datetime" -> rs.getObject(i, LocalDateTime.class).toString().replace('T', ' ');
            default -> o.toString();
        };
    }

    static void meta(String mode, ResultSetMetaData md) throws SQLException {
        for (int i = 1; i <= md.getColumnCount(); i++) {
            System.out.println("meta " + mode + " " + md.getColumnLabel(i)
                    + " name=" + md.getColumnName(i)
                    + " table=" + md.getTableName(i)
                    + " type=" + md.getColumnType(i)
                    + " typeName=" + md.getColumnTypeName(i)
                    + " precision=" + md.getPrecision(i)
                    + " scale=" + md.getScale(i)
                    + " signed=" + md.isSigned(i)
                    + " class=" + md.getColumnClassName(i)
                    + " nullable=" + md.isNullable(i)
                    + " autoIncrement=" + md.isAutoIncrement(i)
                    + " displaySize=" + md.getColumnDisplaySize(i)
                    + " caseSensitive=" + md.isCaseSensitive(i));
        }
    }

    static void checkRows(String mode, ResultSet rs) throws SQLException {
        meta(mode, rs.getMetaData());
        int rows = 0;
        while (rs.next()) {
            rows++;
            int id = rs.getInt(1);
            for (int i = 0; i < cols.size(); i++) {
                Col c = cols.get(i);
                String got = canonical(rs, i + 2, c);
                // Rows 1 (text INSERT) and 2 (prepared INSERT) hold the values, 3 and 4 NULLs.
                String want = id <= 2 ? c.value : null;
                eq(got, want, mode + " row " + id + " " + c.name + " (" + c.sqlType + ")");
                if (got != null) {
                    Object o = rs.getObject(i + 2);
                    eq(o.getClass().getName(), rs.getMetaData().getColumnClassName(i + 2),
                            mode + " " + c.name + " getObject class");
                }
            }
        }
        eq(rows, 4, mode + " rows");
    }

    static void types(String user, String password) throws Exception {
        String db = "drv_" + driver;
        try (Connection c = connect("tcp", user, password, "")) {
            Statement s = c.createStatement();
            s.execute("DROP DATABASE IF EXISTS " + db);
            s.execute("CREATE DATABASE " + db);
            s.execute("USE " + db);
            StringBuilder ddl = new StringBuilder(
                    "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY");
            StringBuilder names = new StringBuilder("id");
            StringBuilder text = new StringBuilder("1");
            StringBuilder nulls = new StringBuilder("4");
            StringBuilder marks = new StringBuilder("?");
            for (Col col : cols) {
                ddl.append(", ").append(col.name).append(' ').append(col.sqlType);
                names.append(", ").append(col.name);
                text.append(", ").append(literal(col));
                nulls.append(", NULL");
                marks.append(", ?");
            }
            s.execute(ddl.append(") DEFAULT CHARSET=utf8mb4").toString());
            eq(s.executeUpdate("INSERT INTO t (" + names + ") VALUES (" + text + ")"), 1,
                    "text INSERT");
            eq(s.executeUpdate("INSERT INTO t (" + names + ") VALUES (" + nulls + ")"), 1,
                    "text INSERT NULLs");
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO t (" + names + ") VALUES (" + marks + ")")) {
                ps.setInt(1, 2);
                for (int i = 0; i < cols.size(); i++) bind(ps, i + 2, cols.get(i));
                eq(ps.executeUpdate(), 1, "prepared INSERT");
                ps.setInt(1, 3);
                for (int i = 0; i < cols.size(); i++) ps.setNull(i + 2, sqlType(cols.get(i)));
                eq(ps.executeUpdate(), 1, "prepared INSERT NULLs");
            }
            try (ResultSet rs = s.executeQuery("SELECT * FROM t ORDER BY id")) {
                checkRows("text", rs);
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT * FROM t WHERE id > ? ORDER BY id")) {
                ps.setInt(1, 0);
                try (ResultSet rs = ps.executeQuery()) {
                    checkRows("prepared", rs);
                }
            }
            // Each value also compares equal to itself bound as a parameter (the server's
            // comparison of the driver's binary parameter with the stored value).
            for (int i = 0; i < cols.size(); i++) {
                Col col = cols.get(i);
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT COUNT(*) FROM t WHERE " + col.name + " = ?")) {
                    bind(ps, 1, col);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        eq(rs.getInt(1), 2, "WHERE " + col.name + " = ? (" + col.sqlType + ")");
                    }
                }
            }
            String exprs = "SELECT COUNT(*) AS n, SUM(ii) AS s, MAX(vc) AS mx, 'héllo' AS lit, "
                    + "UPPER(vc) AS up, id + 1 AS plus FROM t";
            try (ResultSet rs = s.executeQuery(exprs)) {
                meta("expr", rs.getMetaData());
            }
        }
    }

    // ---- pool ----------------------------------------------------------------------------------

    static void pool(String user, String password) throws Exception {
        String db = "drv_" + driver;
        boolean mysql = driver.equals("mysql");
        // What pools (HikariCP's recommended settings) and ORMs turn on.
        String extra = mysql
                ? "&cachePrepStmts=true&prepStmtCacheSize=250&useLocalSessionState=true"
                        + "&rewriteBatchedStatements=true&cacheResultSetMetadata=true"
                        + "&cacheServerConfiguration=true&elideSetAutoCommits=true"
                        + "&maintainTimeStats=false&trackSessionState=true"
                        + "&characterSetResults=utf8mb4&connectionCollation=utf8mb4_general_ci"
                        + "&sessionVariables=sql_mode='STRICT_TRANS_TABLES'"
                        + "&useCursorFetch=true&defaultFetchSize=2"
                : "&cachePrepStmts=true&useBulkStmts=true&sessionVariables=sql_mode='STRICT_TRANS_TABLES'";
        try (Connection c = connect("tcp", user, password, extra)) {
            c.setCatalog(db);
            eq(one(c, "SELECT DATABASE()"), db, "setCatalog");
            eq(one(c, "SELECT @@session.sql_mode"), "STRICT_TRANS_TABLES", "sessionVariables");
            if (mysql) {
                eq(one(c, "SELECT @@character_set_results"), "utf8mb4", "characterSetResults");
                eq(one(c, "SELECT @@collation_connection"), "utf8mb4_general_ci",
                        "connectionCollation");
            }
            check(c.isValid(2), "isValid");
            // Connector/J sends a statement starting with /* ping */ as COM_PING.
            try (Statement s = c.createStatement()) {
                s.executeQuery("/* ping */ SELECT 1").close();
            }
            // Transactions as a pool hands them out.
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("CREATE TABLE IF NOT EXISTS p (id INT PRIMARY KEY, v VARCHAR(20))");
            }
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO p VALUES (?, ?)")) {
                ps.setInt(1, 1);
                ps.setString(2, "rolled back");
                ps.executeUpdate();
            }
            c.rollback();
            c.setAutoCommit(true);
            eq(one(c, "SELECT COUNT(*) FROM p"), "0", "rollback");
            // A batch (rewritten to one multi-row INSERT by Connector/J).
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO p VALUES (?, ?)")) {
                for (int i = 1; i <= 5; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "v" + i + "ü");
                    ps.addBatch();
                }
                int total = 0;
                for (int n : ps.executeBatch()) total += n == Statement.SUCCESS_NO_INFO ? 1 : n;
                eq(total, 5, "batch");
            }
            // Generated keys from the OK packet's last_insert_id.
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO t (ii) VALUES (7)", Statement.RETURN_GENERATED_KEYS);
                try (ResultSet keys = s.getGeneratedKeys()) {
                    check(keys.next(), "a generated key");
                    eq(keys.getLong(1), 5L, "generated key");
                }
            }
            // Cursor fetch (COM_STMT_FETCH, 2 rows at a time) for Connector/J.
            try (PreparedStatement ps = c.prepareStatement("SELECT id, v FROM p WHERE id > ?")) {
                ps.setFetchSize(2);
                ps.setInt(1, 0);
                int n = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        n++;
                        eq(rs.getString(2), "v" + rs.getInt(1) + "ü", "cursor row");
                    }
                }
                eq(n, 5, "cursor rows");
            }
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            eq(c.getTransactionIsolation(), Connection.TRANSACTION_READ_COMMITTED, "isolation");
            c.setReadOnly(true);
            check(c.isReadOnly(), "readOnly");
            c.setReadOnly(false);
        }
        // COM_RESET_CONNECTION: user variables and session state go, the connection stays. (On
        // a connection of its own: the reset closes the server's prepared statements, which
        // Connector/J's statement cache does not expect, against mysqld and MariaDB alike.)
        // The MariaDB client sends COM_RESET_CONNECTION from reset() only when told to.
        try (Connection c = connect("tcp", user, password, mysql ? "" : "&useResetConnection=true")) {
            c.setCatalog(db);
            try (Statement s = c.createStatement()) {
                s.execute("SET @pool_var = 42");
            }
            eq(one(c, "SELECT @pool_var"), "42", "user variable");
            if (mysql) {
                c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).resetServerState();
            } else {
                c.unwrap(org.mariadb.jdbc.Connection.class).reset();
            }
            // The MariaDB client sends COM_RESET_CONNECTION to MariaDB servers only (10.2.22+,
            // `Connection.reset`); to MySQL 8.0, and so to binlogd, it sends nothing.
            boolean resets = mysql || c.getMetaData().getDatabaseProductName().equals("MariaDB");
            eq(one(c, "SELECT @pool_var"), resets ? null : "42", "user variable after reset");
            check(c.isValid(2), "isValid after reset");
            eq(one(c, "SELECT COUNT(*) FROM " + db + ".p"), "5", "query after reset");
        }
        // Concurrent use: 4 connections, 8 threads, each its own transactions.
        int threads = 8;
        ExecutorService ex = Executors.newFixedThreadPool(threads);
        BlockingQueue<Connection> free = new LinkedBlockingQueue<>();
        for (int i = 0; i < 4; i++) {
            Connection c = connect("tcp", user, password, "");
            c.setCatalog(db);
            free.add(c);
        }
        AtomicInteger done = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(ex.submit(() -> {
                for (int i = 0; i < 20; i++) {
                    Connection c = free.take();
                    try {
                        c.setAutoCommit(false);
                        try (PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO p VALUES (?, ?)")) {
                            ps.setInt(1, 1000 + thread * 100 + i);
                            ps.setString(2, "t" + thread);
                            ps.executeUpdate();
                        }
                        c.commit();
                        c.setAutoCommit(true);
                        done.incrementAndGet();
                    } finally {
                        free.add(c);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
        ex.shutdown();
        eq(done.get(), threads * 20, "concurrent transactions");
        Connection c = free.take();
        eq(one(c, "SELECT COUNT(*) FROM p WHERE id >= 1000"), String.valueOf(threads * 20),
                "concurrent rows");
        for (Connection each : free) each.close();
        c.close();
        System.out.println("pool ok");
    }

    public static void main(String[] args) throws Exception {
        driver = args[0];
        port = Integer.parseInt(args[1]);
        socket = args[2];
        for (String line : Files.readAllLines(Path.of(args[3]), StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] f = line.split("\t", 4);
            cols.add(new Col(f[0], f[1], f[2], f[3]));
        }
        List<String> phases = List.of(args[4].split(","));
        List<String[]> accounts = new ArrayList<>();
        for (int i = 5; i + 1 < args.length; i += 2) accounts.add(new String[] {args[i], args[i + 1]});
        String user = accounts.get(0)[0], password = accounts.get(0)[1];
        long start = System.nanoTime();
        try {
            if (phases.contains("conn")) conn(accounts);
            if (phases.contains("types")) types(user, password);
            if (phases.contains("pool")) pool(user, password);
        } catch (Exception e) {
            e.printStackTrace(System.out);
            fail("exception: " + e);
        }
        System.out.println("took " + (System.nanoTime() - start) / 1_000_000 + " ms");
        System.exit(failures == 0 ? 0 : 1);
    }
}
