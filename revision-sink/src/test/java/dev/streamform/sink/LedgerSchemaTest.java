package dev.streamform.sink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The schema check every command that uses the ledger makes first: a schema {@code streamform} that
 * another application made, or that was changed outside the migrations, is refused in one message
 * naming the database, before migrating or reading.
 */
public class LedgerSchemaTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final String DATABASE = "jdbc:postgresql://db/x as postgres";

  private HikariDataSource pool;

  @BeforeEach
  void freshDatabase() {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 2, 1_000);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  private void execute(String... statements) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
      c.commit(); // the pool's connections do not commit by themselves
    }
  }

  @Test
  void theExpectedColumnsAreWhatTheMigrationsCreate() throws Exception {
    LedgerSchema.migrate(pool);
    Map<String, List<String>> created = LedgerSchema.columnsOf(pool);
    created.remove("flyway_schema_history");
    // on a new migration, the lines of db/ledger-columns.txt are in the reason
    assertThat(
        created.entrySet().stream()
            .map(e -> e.getKey() + ": " + String.join(" ", e.getValue()))
            .collect(Collectors.joining("\n")),
        created,
        equalTo(LedgerSchema.expectedColumns()));
  }

  @Test
  void aScoringRunsStartQueriesAreAnsweredFromAnIndexNotByReadingEveryDecision() throws Exception {
    LedgerSchema.migrate(pool);
    // decisions of two models and four generations, so the planner weighs the indexes by what they
    // select: on an empty table every index costs about the same, and after V180 rebuilt
    // decision_by_event the planner took that one (Index Scan, policy_generation a filter)
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.executeUpdate(
          "INSERT INTO streamform.decision (decision_id, model, event_id, event_partition,"
              + " event_offset, occurred_at, arrived_at, scored_at, contract, state_cutoff,"
              + " state_revision, features, score, model_digest, preprocessing_digest,"
              + " policy_generation, revision, key_values, record) SELECT 'd' || i, CASE WHEN i %"
              + " 2 = 0 THEN 'm' ELSE 'n' END, '0-' || i, 0, i, now(), now(), now(),"
              + " 'as_of_occurrence', now(), 1, '{}', 1.0, 'm', 'p', 1 + i % 4, 1, '{}', '{}'"
              + " FROM generate_series(1, 2000) AS i");
      s.execute("VACUUM ANALYZE streamform.decision"); // and its pages all-visible, as they stay
    }
    List<String> queries =
        List.of(
            "SELECT count(*) FROM streamform.decision WHERE model = 'm' AND policy_generation = 1",
            "SELECT max(policy_generation) FROM streamform.decision WHERE model = 'm'");
    for (String query : queries) {
      StringBuilder plan = new StringBuilder();
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("SET enable_seqscan = off"); // on an empty table the planner would scan anyway
        try (var rs = s.executeQuery("EXPLAIN " + query)) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
        c.rollback();
      }
      assertThat(
          query + "\n" + plan,
          plan.toString().contains("Index Only Scan"), // the index alone answers: no row is read
          is(true));
    }
  }

  @Test
  void anEmptyDatabaseAndAMigratedOneAreFine() throws Exception {
    assertThat(LedgerSchema.refusal(pool, DATABASE), is(Optional.empty()));
    LedgerSchema.migrate(pool);
    assertThat(LedgerSchema.refusal(pool, DATABASE), is(Optional.empty()));
  }

  @Test
  void anotherApplicationsSchemaIsRefusedNamingItsTables() throws Exception {
    execute(
        "CREATE SCHEMA streamform",
        "CREATE TABLE streamform.projection (id serial, name text)",
        "CREATE TABLE streamform.orders (id serial)");
    assertThat(
        LedgerSchema.refusal(pool, DATABASE),
        is(
            Optional.of(
                "schema streamform in "
                    + DATABASE
                    + " holds tables Streamform did not create (orders, projection) and no"
                    + " migration history of Streamform: use another database for Streamform's"
                    + " ledger (it is always in schema streamform)")));
  }

  @Test
  void anotherApplicationsMigrationHistoryIsRefusedNamingItsMigrations() throws Exception {
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
    assertThat(
        LedgerSchema.refusal(pool, DATABASE),
        is(
            Optional.of(
                "schema streamform in "
                    + DATABASE
                    + " belongs to another application: its migration history holds migrations"
                    + " that are not Streamform's (V1__other.sql, V2__other.sql): use another"
                    + " database for Streamform's ledger (it is always in schema streamform)")));
  }

  @Test
  void aColumnDroppedByHandIsNamed() throws Exception {
    LedgerSchema.migrate(pool);
    execute("ALTER TABLE streamform.correction_ledger DROP COLUMN offsets CASCADE");
    assertThat(
        LedgerSchema.refusal(pool, DATABASE),
        is(
            Optional.of(
                "streamform.correction_ledger in "
                    + DATABASE
                    + " lacks column offsets: the schema was changed outside its migrations")));
  }

  @Test
  void aTableDroppedByHandIsNamed() throws Exception {
    LedgerSchema.migrate(pool);
    execute("DROP TABLE streamform.effect_pause_history");
    assertThat(
        LedgerSchema.refusal(pool, DATABASE),
        is(
            Optional.of(
                "streamform.effect_pause_history in "
                    + DATABASE
                    + " is missing: the schema was changed outside its migrations")));
  }

  /**
   * A user without SELECT on a table the migrations made (as a table a migration adds after the
   * user's {@code GRANT SELECT ON ALL TABLES} has none) is told so, with the grant, not that the
   * table is missing: PostgreSQL's information_schema hides the table from such a user, the
   * catalogue does not.
   */
  @Test
  void aTableTheUserMayNotReadIsNamedWithTheGrantNotAsMissing() throws Exception {
    LedgerSchema.migrate(pool);
    String reader = "reader_" + pool.getJdbcUrl().substring(pool.getJdbcUrl().lastIndexOf('/') + 1);
    execute(
        "CREATE ROLE " + reader + " LOGIN",
        "GRANT USAGE ON SCHEMA streamform TO " + reader,
        "GRANT SELECT ON ALL TABLES IN SCHEMA streamform TO " + reader,
        "REVOKE SELECT ON streamform.effect_pause_history, streamform.generation_policy FROM "
            + reader);
    try (HikariDataSource limited =
        JdbcTarget.of(pool.getJdbcUrl()).withUser(reader).openPool("reader", 2, 1_000)) {
      String database = "jdbc:postgresql://db/x as " + reader;
      assertThat(
          LedgerSchema.refusal(limited, database),
          is(
              Optional.of(
                  reader
                      + " may not read streamform.effect_pause_history,"
                      + " streamform.generation_policy in "
                      + database
                      + " (no SELECT privilege on them, as on a table a migration added after the"
                      + " user's grants): their owner postgres can run GRANT SELECT ON"
                      + " streamform.effect_pause_history, streamform.generation_policy TO "
                      + reader)));
      execute(
          "GRANT SELECT ON streamform.effect_pause_history, streamform.generation_policy TO "
              + reader);
      assertThat(LedgerSchema.refusal(limited, database), is(Optional.empty()));
    }
  }

  /**
   * A job submitted without the command line (a Beam author's own pipeline, which {@code run}'s
   * check never saw) refuses another application's schema in the sink, in the message a command
   * gives, naming the database, before it migrates: before, Flyway's own advice to baseline.
   */
  @Test
  void theRevisionSinkInAPipelineOfItsOwnRefusesAnotherApplicationsSchema() throws Exception {
    execute("CREATE SCHEMA streamform", "CREATE TABLE streamform.orders (id serial)");
    JdbcTarget target = JdbcTarget.of(pool.getJdbcUrl()).withUser("postgres");
    org.apache.beam.sdk.Pipeline p =
        org.apache.beam.sdk.Pipeline.create(
            org.apache.beam.sdk.options.PipelineOptionsFactory.fromArgs(
                    "--runner=" + org.apache.beam.runners.direct.DirectRunner.class.getName())
                .create());
    p.apply(
            org.apache.beam.sdk.transforms.Create.of(Revisions.revision(7, 10, 1, "10"))
                .withCoder(
                    dev.streamform.transforms.windows.WindowCoders.WindowRevisionCoder.of(
                        Revisions.KEY, Revisions.VALUES)))
        .apply(RevisionSink.to(target));
    assertRefusedAsACommandRefusesIt(p, target);
  }

  /**
   * Runs {@code p}, which must fail with {@link LedgerSchema.Unusable}'s message for a schema
   * streamform holding only another application's table {@code orders}, and leave the schema as it
   * was (nothing migrated into it).
   */
  public static void assertRefusedAsACommandRefusesIt(
      org.apache.beam.sdk.Pipeline p, JdbcTarget target) throws SQLException {
    List<String> messages = new java.util.ArrayList<>();
    try {
      p.run().waitUntilFinish();
    } catch (RuntimeException e) {
      for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
        messages.add(t.getClass().getSimpleName() + ": " + t.getMessage());
      }
    }
    assertThat(
        String.join("\n", messages),
        messages,
        org.hamcrest.Matchers.hasItem(
            LedgerSchema.Unusable.class.getSimpleName()
                + ": schema streamform in "
                + target.describe()
                + " holds tables Streamform did not create (orders) and no migration history of"
                + " Streamform: use another database for Streamform's ledger (it is always in"
                + " schema streamform)"));
    try (HikariDataSource after = target.openPool("after", 2, 1_000);
        Connection c = after.getConnection();
        Statement s = c.createStatement();
        java.sql.ResultSet tables =
            s.executeQuery(
                "SELECT string_agg(table_name, ' ') FROM information_schema.tables"
                    + " WHERE table_schema = 'streamform'")) {
      tables.next();
      assertThat(tables.getString(1), equalTo("orders"));
    }
  }
}
