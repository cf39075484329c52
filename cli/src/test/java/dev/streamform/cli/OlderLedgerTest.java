package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerSchema;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ledger written by an older Streamform (its schema migrated only up to V173, before V174 added
 * {@code effect_settlement}) read by this one: every command that only reads brings it up to date
 * first, says so in one line on standard error, then prints what it prints on a ledger that is up
 * to date; a user who may not migrate is told what to run instead.
 */
class OlderLedgerTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  /**
   * The commands that open an existing ledger without creating it: those that only read, and
   * dispatch, which migrated on its own before.
   */
  private static final List<String> READERS =
      List.of(
          "dispatch --once",
          "effects show",
          "effects verify",
          "ledger show",
          "ledger verify",
          "gates --generation 1",
          "compare-generations --from 1 --to 2");

  @TempDir Path dir;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();
  private String url;
  private HikariDataSource pool;
  private Path project;

  @BeforeEach
  void aLedgerOfAnOlderStreamform() throws Exception {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
    project =
        EffectsProject.copy(
            dir,
            "{kind: webhook, url: \"http://127.0.0.1:9/x\", idempotency: key, receipts: true}");
    olderSchema("173");
    pending = flyway(null).info().pending().length;
    newest = LedgerSchema.pending(pool).orElseThrow().to();
  }

  /** The migrations after V173 (V174 and those that came later), and the newest's version. */
  private int pending;

  private String newest;

  private String brought() {
    return " up to date (" + pending + (pending == 1 ? " migration" : " migrations") + ")\n";
  }

  @AfterEach
  void close() {
    pool.close();
  }

  /** Migrates the test's database as an older Streamform did: up to {@code version}, no further. */
  private void olderSchema(String version) {
    flyway(version).migrate();
  }

  private Flyway flyway(String target) {
    var config =
        Flyway.configure(LedgerSchema.class.getClassLoader())
            .dataSource(pool)
            .schemas(LedgerSchema.SCHEMA)
            .defaultSchema(LedgerSchema.SCHEMA)
            .locations("classpath:db/migration");
    return (target == null ? config : config.target(target)).load();
  }

  private int command(String command, String user) {
    out = new StringWriter();
    err = new StringWriter();
    String[] words = command.split(" ");
    int verb = words[0].equals("effects") || words[0].equals("ledger") ? 2 : 1;
    List<String> args = new ArrayList<>(List.of(words).subList(0, verb));
    args.addAll(
        List.of(
            project.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            user));
    args.addAll(List.of(words).subList(verb, words.length));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  private int command(String command) {
    return command(command, "postgres");
  }

  private String database(String user) {
    return JdbcTarget.of(url).withUser(user).describe();
  }

  private int highestVersion() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT max(version::int) FROM streamform.flyway_schema_history WHERE success")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void effectsShowOnAnOlderLedgerBringsItUpToDateThenShowsIt() throws Exception {
    assertThat(err.toString(), command("effects show"), is(0));
    assertThat(
        err.toString(),
        is("streamform effects show: brought the ledger in " + database("postgres") + brought()));
    assertThat(out.toString(), is("hourly_revenue: 0 effects, 0 compensations\n"));
    assertThat(String.valueOf(highestVersion()), is(newest));
    // up to date now: no such line the second time, the same output
    assertThat(command("effects show"), is(0));
    assertThat(err.toString(), is(""));
    assertThat(out.toString(), is("hourly_revenue: 0 effects, 0 compensations\n"));
  }

  @Test
  void ledgerVerifyOnAnOlderLedgerBringsItUpToDateThenVerifies() throws Exception {
    assertThat(err.toString(), command("ledger verify"), is(0));
    assertThat(
        err.toString(),
        is("streamform ledger verify: brought the ledger in " + database("postgres") + brought()));
    assertThat(out.toString(), startsWith("0 projections, 0 revisions, 0 gaps, 0 mismatches"));
    assertThat(command("ledger verify"), is(0));
    assertThat(err.toString(), is(""));
  }

  @Test
  void everyReadCommandSaysItFirstAndThenDoesItsWork() throws Exception {
    List<String> wrong = new ArrayList<>();
    for (String reader : READERS) {
      olderSchemaAgain();
      int exit = command(reader);
      String name = reader.split(" --")[0];
      String said = reader + " (exit " + exit + "): " + err;
      if (!err.toString()
              .startsWith(
                  "streamform "
                      + name
                      + ": brought the ledger in "
                      + database("postgres")
                      + brought())
          || err.toString().contains("does not exist")
          || !String.valueOf(highestVersion()).equals(newest)) {
        wrong.add(said);
        continue;
      }
      String first = out.toString();
      // up to date now: the same exit and output, without the line
      if (command(reader) != exit
          || err.toString().contains("up to date")
          || !out.toString().equals(first)) {
        wrong.add(reader + " again (exit " + exit + "): " + err);
      }
    }
    assertThat(String.join("", wrong), wrong, is(List.of()));
  }

  /** A new database, migrated as the older Streamform did (the migrations after V173 undone). */
  private void olderSchemaAgain() throws Exception {
    pool.close();
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
    olderSchema("173");
  }

  private List<String> tables() throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'streamform' ORDER BY 1")) {
      while (rs.next()) {
        out.add("streamform." + rs.getString(1));
      }
    }
    return out;
  }

  private void asOwner(String... statements) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
      c.commit();
    }
  }

  /**
   * A user granted SELECT on the ledger's tables before an upgrade has no grant on the tables the
   * upgrade's migrations add. After the owner brought the ledger up to date, every read command
   * tells that user the grant it lacks, in one line (not that a table is missing); after that
   * grant, each does and says what it does for the owner.
   */
  @Test
  void aUserGrantedSelectBeforeAnUpgradeIsToldTheGrantItLacks() throws Exception {
    String reader = "reader_" + url.substring(url.lastIndexOf('/') + 1);
    List<String> older = tables();
    asOwner(
        "CREATE ROLE " + reader + " LOGIN",
        "GRANT USAGE ON SCHEMA streamform TO " + reader,
        "GRANT SELECT ON ALL TABLES IN SCHEMA streamform TO " + reader);
    assertThat(command("ledger verify"), is(0)); // the owner upgrades
    List<String> added = new ArrayList<>(tables());
    added.removeAll(older);
    assertThat(added.isEmpty(), is(false));
    String grant = "GRANT SELECT ON " + String.join(", ", added) + " TO " + reader;
    List<String> wrong = new ArrayList<>();
    for (String command : READERS.subList(1, READERS.size())) { // dispatch writes
      String name = command.split(" --")[0];
      int exit = command(command, reader);
      if (exit != 1
          || !out.toString().isEmpty()
          || err.toString().lines().count() != 1
          || err.toString().contains("is missing")
          || !err.toString().startsWith("streamform " + name + ": " + reader + " may not read ")
          || !err.toString().endsWith(" owner postgres can run " + grant + "\n")) {
        wrong.add(command + " (exit " + exit + "): " + err);
      }
    }
    assertThat(String.join("", wrong), wrong, is(List.of()));
    asOwner(grant);
    for (String command : READERS.subList(1, READERS.size())) {
      int owners = command(command);
      String first = out.toString();
      String said = err.toString();
      int exit = command(command, reader);
      if (exit != owners || !err.toString().equals(said) || !out.toString().equals(first)) {
        wrong.add(command + " after the grant (exit " + exit + "): " + err);
      }
    }
    assertThat(String.join("", wrong), wrong, is(List.of()));
  }

  @Test
  void aUserWhoMayNotMigrateIsToldWhatBringsTheLedgerUpToDate() throws Exception {
    String auditor = "auditor_" + url.substring(url.lastIndexOf('/') + 1);
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + auditor + " LOGIN");
      s.execute("GRANT USAGE ON SCHEMA streamform TO " + auditor);
      s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA streamform TO " + auditor);
      c.commit();
    }
    for (String reader : List.of("effects show", "ledger verify")) {
      assertThat(reader, command(reader, auditor), is(1));
      assertThat(
          reader,
          err.toString(),
          startsWith(
              "streamform "
                  + reader
                  + ": the ledger in "
                  + database(auditor)
                  + " was written by an older Streamform and awaits "
                  + pending
                  + (pending == 1 ? " migration" : " migrations")
                  + " (version 173 to "
                  + newest
                  + ") that this user may not run ("));
      assertThat(
          reader,
          err.toString(),
          endsWith(
              "): run this command once as the owner of schema streamform (--jdbc-user"
                  + " postgres), which brings the ledger up to date\n"));
      assertThat(reader, err.toString().lines().count(), is(1L));
      assertThat(reader, out.toString(), is(""));
      assertThat(highestVersion(), is(173));
    }
    // as the owner, as the message says, it is brought up to date
    assertThat(command("ledger verify"), is(0));
    assertThat(err.toString(), endsWith(brought()));
    assertThat(String.valueOf(highestVersion()), is(newest));
  }
}
