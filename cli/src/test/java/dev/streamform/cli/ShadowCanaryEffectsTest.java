package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shadow run of a generation a canary share reads: the windows it writes of the share's keys are
 * canonical, and their effect rules are evaluated as a live job's would be — the keys that read
 * another generation get nothing from it (docs/decisions/0179; found by a read-only audit of the
 * rollout: the canary keys' new windows got no effect, and a live job of the generation would only
 * replay them). A job still running when its generation is promoted: {@code RolloutTest}.
 */
class ShadowCanaryEffectsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final int MERCHANTS = 20;

  @TempDir Path project;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();
  private String url;

  @BeforeEach
  void aWindowedModelWithARewardOnAFile() throws Exception {
    url = POSTGRES.newDatabase();
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      merchant_id: int64\n      amount: decimal(12,2)\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n    watermark: 5m\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  daily_revenue:\n    key: [merchant_id]\n    window: 1d\n"
            + "    allowed_lateness: 30m\n    effects:\n      - type: reward\n"
            + "        subject: merchant_id\n        when: \"revenue >= 100\"\n"
            + "        provider: {kind: webhook, url: \"http://127.0.0.1:1/effects\","
            + " idempotency: key, receipts: true}\n");
    Files.writeString(
        project.resolve("models/daily_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    Files.writeString(project.resolve("payments.jsonl"), day("2026-08-30"));
  }

  /** 150.00 for every merchant on {@code date}, then a payment the next day that closes it. */
  private static String day(String date) {
    StringBuilder lines = new StringBuilder();
    for (int m = 1; m <= MERCHANTS; m++) {
      lines.append(
          String.format(
              "{\"merchant_id\":%d,\"amount\":150.00,\"paid_at\":\"%sT10:00:00Z\"}%n", m, date));
    }
    return lines.toString();
  }

  private int streamform(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  private int run(String... more) {
    return onLedger("run", more);
  }

  private int aliasSet(String... more) {
    return onLedger("alias set", more);
  }

  /** {@code command} on the project's daily_revenue model and the test's database, then more. */
  private int onLedger(String command, String... more) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(
        List.of(
            project.toString(),
            "--model",
            "daily_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres"));
    args.addAll(List.of(more));
    return streamform(args.toArray(String[]::new));
  }

  /**
   * Each window's effects, as "day generation-of-its-effect", with the generation its key reads.
   */
  private List<String> effectsOf(String date) throws Exception {
    DataSource pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
    List<String> rows = new ArrayList<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT p.window_key::text, e.generation, e.state,"
                    + " streamform.generation_for_key(a.generation, a.canary_generation,"
                    + " a.canary_basis_points, p.window_key)"
                    + " FROM streamform.effect e"
                    + " JOIN streamform.canonical_alias a ON a.model = e.model"
                    + " JOIN (SELECT DISTINCT logical_window_id, window_key, window_start FROM"
                    + " streamform.projection) p ON p.logical_window_id = e.logical_window_id"
                    + " WHERE p.window_start = '"
                    + date
                    + "T00:00:00Z' ORDER BY 1")) {
      while (rs.next()) {
        rows.add(
            rs.getString(1).replace(" ", "")
                + " "
                + rs.getInt(2)
                + " "
                + rs.getString(3)
                + " "
                + rs.getInt(4));
      }
    } finally {
      ((AutoCloseable) pool).close();
    }
    return rows;
  }

  @Test
  void aShadowJobOfTheCanaryGenerationPreparesTheEffectsOfTheCanaryKeysItWrites() throws Exception {
    assertThat(err.toString(), run(), is(0)); // generation 1, live: canonical by its first write
    assertThat(err.toString(), run("--generation", "2", "--shadow"), is(0));
    assertThat(err.toString(), aliasSet("--generation", "2", "--share", "50%"), is(0));

    // a new day: generation 1's live job writes its keys' windows, the shadow job the canary's
    Files.writeString(
        project.resolve("payments.jsonl"), day("2026-08-31"), StandardOpenOption.APPEND);
    assertThat(err.toString(), run(), is(0));
    assertThat(err.toString(), run("--generation", "2", "--shadow"), is(0));
    String shadowRun = err.toString();

    List<String> effects = effectsOf("2026-08-31");
    assertThat(String.join("\n", effects), effects.size(), is(MERCHANTS));
    List<String> wrong = new ArrayList<>();
    int canary = 0;
    for (String e : effects) {
      String[] f = e.split(" ");
      // subject, effect's generation, state, the generation the key reads
      if (!f[1].equals(f[3]) || !f[2].equals("PREPARED")) {
        wrong.add(e);
      }
      canary += f[3].equals("2") ? 1 : 0;
    }
    assertThat("effects of another generation than their key reads", wrong, is(List.of()));
    assertThat(
        "some keys are in the 50% share, some not", canary > 0 && canary < MERCHANTS, is(true));
    assertThat(
        shadowRun,
        containsString(
            "the model's effect rules (1) act for the keys a canary share reads from generation 2"
                + " (50% of keys)"));
  }
}
