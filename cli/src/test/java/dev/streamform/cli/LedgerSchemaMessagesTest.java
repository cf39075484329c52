package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database whose schema {@code streamform} Streamform cannot use — another application's tables,
 * another application's migration history, a column dropped by hand — is refused by every command
 * that uses the ledger in one message naming the database, before migrating or reading.
 */
class LedgerSchemaMessagesTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final List<String> COMMANDS =
      List.of(
          "run",
          "alias set --generation 1",
          // not effects pause: it refuses a model without effects before opening the ledger
          "effects verify",
          "ledger verify",
          "ledger show",
          "effects show");

  @TempDir Path project;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();
  private String url;

  @BeforeEach
  void aWindowedModelOnAFile() throws Exception {
    url = POSTGRES.newDatabase();
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      merchant_id: int64\n      amount: decimal(12,2)\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  hourly_revenue:\n    key: [merchant_id]\n    window: 1h\n"
            + "    allowed_lateness: 30m\n");
    Files.writeString(
        project.resolve("models/hourly_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    Files.writeString(
        project.resolve("payments.jsonl"),
        "{\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}\n");
  }

  private int command(String command) {
    out = new StringWriter();
    err = new StringWriter();
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    int at = command.startsWith("alias set") ? 2 : args.size();
    args.addAll(
        at,
        List.of(
            project.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres"));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  private void execute(String... statements) throws Exception {
    try (HikariDataSource pool = JdbcTarget.of(url).withUser("postgres").openPool("t", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
      c.commit();
    }
  }

  /** Each command exits 1 with {@code "streamform <command>: " + message} alone on stderr. */
  private void everyCommandSays(String message) {
    for (String command : COMMANDS) {
      String name = command.replace(" --generation 1", "");
      assertThat(command + ": " + out, command(command), is(1));
      assertThat(command, err.toString(), is("streamform " + name + ": " + message + "\n"));
    }
  }

  @Test
  void anotherApplicationsTablesAreNamedBeforeMigratingOrReading() throws Exception {
    execute(
        "CREATE SCHEMA streamform", "CREATE TABLE streamform.projection (id serial, name text)");
    everyCommandSays(
        "schema streamform in "
            + url
            + " as postgres holds tables Streamform did not create (projection) and no migration"
            + " history of Streamform: use another database for Streamform's ledger (it is always"
            + " in schema streamform)");
  }

  @Test
  void anotherApplicationsMigrationsAreNamedAndRunIsNotSuggested() throws Exception {
    execute(
        "CREATE SCHEMA streamform",
        "CREATE TABLE streamform.flyway_schema_history (installed_rank int PRIMARY KEY,"
            + " version varchar(50), description varchar(200) NOT NULL, type varchar(20) NOT"
            + " NULL, script varchar(1000) NOT NULL, checksum int, installed_by varchar(100) NOT"
            + " NULL, installed_on timestamp NOT NULL DEFAULT now(), execution_time int NOT"
            + " NULL, success boolean NOT NULL)",
        "INSERT INTO streamform.flyway_schema_history VALUES (1, '1', 'other', 'SQL',"
            + " 'V1__other.sql', 1, 'app', now(), 1, true), (2, '2', 'other', 'SQL',"
            + " 'V2__other.sql', 2, 'app', now(), 1, true)");
    everyCommandSays(
        "schema streamform in "
            + url
            + " as postgres belongs to another application: its migration history holds"
            + " migrations that are not Streamform's (V1__other.sql, V2__other.sql): use another"
            + " database for Streamform's ledger (it is always in schema streamform)");
  }

  @Test
  void aColumnDroppedByHandIsNamedByEveryCommand() throws Exception {
    assertThat(err.toString(), command("run"), is(0));
    execute("ALTER TABLE streamform.correction_ledger DROP COLUMN offsets CASCADE");
    everyCommandSays(
        "streamform.correction_ledger in "
            + url
            + " as postgres lacks column offsets: the schema was changed outside its migrations");
    assertThat(command("run --generation 2"), is(1));
    assertThat(
        err.toString(),
        endsWith(
            "streamform run: streamform.correction_ledger in "
                + url
                + " as postgres lacks column offsets: the schema was changed outside its"
                + " migrations\n"));
  }
}
