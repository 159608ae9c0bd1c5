// Runs Debezium's MySQL connector embedded (no Kafka) against one server, for tests/debezium.rs.
// Usage: java -cp 'debezium-lib/*' DebeziumCheck.java PORT USER PASSWORD DATABASE WORKDIR
// Offsets go to WORKDIR/offsets.dat (Kafka Connect's FileOffsetBackingStore) and the schema
// history to WORKDIR/history.dat (Debezium's FileSchemaHistory), so a second run resumes where
// the first stopped. Every change event is printed to stdout as one line: its value in JSON
// (Kafka Connect's JsonConverter without schemas). The run ends, committing its offsets, when
// WORKDIR/stop exists; it prints `stopped` last. Debezium's own log goes to stderr.
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class DebeziumCheck {
  public static void main(String[] args) throws Exception {
    String port = args[0], user = args[1], password = args[2], database = args[3];
    Path work = Path.of(args[4]);
    Properties p = new Properties();
    p.setProperty("name", "binlogd-check");
    p.setProperty("connector.class", "io.debezium.connector.mysql.MySqlConnector");
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
    p.setProperty("offset.storage.file.filename", work.resolve("offsets.dat").toString());
    p.setProperty("offset.flush.interval.ms", "100");
    p.setProperty("schema.history.internal", "io.debezium.storage.file.history.FileSchemaHistory");
    p.setProperty("schema.history.internal.file.filename", work.resolve("history.dat").toString());
    p.setProperty("database.hostname", "127.0.0.1");
    p.setProperty("database.port", port);
    p.setProperty("database.user", user);
    p.setProperty("database.password", password);
    p.setProperty("database.server.id", "5400");
    p.setProperty("database.include.list", database);
    p.setProperty("topic.prefix", "binlogd");
    p.setProperty("include.schema.changes", "false");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("converter.schemas.enable", "false");
    // Plain numbers for DECIMAL (the default is base64 of the unscaled bytes).
    p.setProperty("decimal.handling.mode", "string");
    // database.ssl.mode stays the default (preferred): TLS when the server offers it.
    // DBZ_PROFILE=1 logs every statement Connector/J sends (to see what the connector reads).
    if (System.getenv("DBZ_PROFILE") != null) {
      p.setProperty("driver.profileSQL", "true");
    }
    // Fail rather than retry for ever: a test must end.
    p.setProperty("errors.max.retries", "3");
    // snapshot.mode stays the default (initial).

    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    DebeziumEngine<ChangeEvent<String, String>> engine =
        DebeziumEngine.create(Json.class)
            .using(p)
            .using((success, message, error) -> {
              if (!success) {
                failed.set(error != null ? error : new RuntimeException(message));
              }
            })
            .notifying(
                (records, committer) -> {
                  for (ChangeEvent<String, String> r : records) {
                    if (r.value() != null) {
                      out.println(r.value());
                    }
                    committer.markProcessed(r);
                  }
                  committer.markBatchFinished();
                })
            .build();
    ExecutorService executor = Executors.newSingleThreadExecutor();
    executor.execute(engine);
    Path stop = work.resolve("stop");
    while (!Files.exists(stop) && failed.get() == null) {
      Thread.sleep(50);
    }
    if (failed.get() == null) {
      // Stops the connector and commits the offsets of every event handed over.
      engine.close();
    }
    executor.shutdown();
    executor.awaitTermination(60, TimeUnit.SECONDS);
    if (failed.get() != null) {
      failed.get().printStackTrace();
      out.println("failed " + failed.get());
      System.exit(1);
    }
    out.println("stopped");
    System.exit(0);
  }
}
