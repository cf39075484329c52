package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import dev.streamform.runners.postgres.LocalPostgresExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A windowed model rolled out as a new generation whose windows hash another zone into their
 * identity (docs/semantics.md §6 calendar windows, §9): a calendar day in Europe/Berlin, then in
 * Europe/Paris (the same midnights), or a fixed 24h window, then a calendar day in UTC (the same
 * bounds). Each generation's ids are recomputed with the zone its own recorded time policy names,
 * so {@code ledger verify} passes a ledger both runs wrote; {@code compare-generations} matches the
 * windows by key and bounds, as it says it does.
 */
class ZoneChangeGenerationsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final String EVENTS =
      String.join(
          "\n",
          "{\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-10-24T12:00:00Z\"}",
          "{\"merchant_id\":7,\"amount\":5.00,\"paid_at\":\"2026-10-25T01:30:00Z\"}",
          "{\"merchant_id\":8,\"amount\":2.00,\"paid_at\":\"2026-10-25T23:30:00Z\"}",
          "");

  @TempDir Path dir;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();
  private String url;
  private Path project;

  @BeforeEach
  void aProject() throws Exception {
    url = POSTGRES.newDatabase();
    project = dir.resolve("payments");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      merchant_id: int64\n      amount: decimal(12,2)\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n");
    Files.writeString(
        project.resolve("models/daily_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    Files.writeString(project.resolve("payments.jsonl"), EVENTS);
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--jdbc-url", url, "--jdbc-user", "postgres"));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
  }

  private void declare(String window, int generation) throws Exception {
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  daily_revenue:\n    key: [merchant_id]\n"
            + window
            + "    generation: "
            + generation
            + "\n");
  }

  private void twoGenerations(String first, String second) throws Exception {
    declare(first, 1);
    int live = run("run", project.toString(), "--model", "daily_revenue");
    assertThat(out + "" + err, live, is(0));
    declare(second, 2);
    int shadow = run("run", project.toString(), "--model", "daily_revenue", "--shadow");
    assertThat(out + "" + err, shadow, is(0));
  }

  private void verifiesFromEitherDeclaration(String first, String second) throws Exception {
    for (String window : List.of(second, first)) {
      declare(window, window.equals(first) ? 1 : 2);
      int verified = run("ledger", "verify", project.toString(), "--model", "daily_revenue");
      assertThat(out + "" + err, verified, is(0));
      assertThat(out.toString(), not(containsString("mismatch:")));
      assertThat(out.toString(), containsString("0 mismatches"));
    }
  }

  @Test
  void aCalendarDayMovedToAnotherZoneVerifiesAndComparesEqual() throws Exception {
    String berlin = "    window: 1d\n    time_zone: Europe/Berlin\n";
    String paris = "    window: 1d\n    time_zone: Europe/Paris\n";
    twoGenerations(berlin, paris);
    verifiesFromEitherDeclaration(berlin, paris);
    int compared =
        run(
            "compare-generations",
            project.toString(),
            "--model",
            "daily_revenue",
            "--from",
            "1",
            "--to",
            "2");
    assertThat(out + "" + err, compared, is(0));
    assertThat(
        out.toString(),
        containsString("3 windows: 3 equal, 0 different, 0 only in generation 1, 0 only in"));
  }

  @Test
  void aFixedDayMadeACalendarDayInUtcVerifies() throws Exception {
    String fixed = "    window: 24h\n";
    String calendar = "    window: 1d\n";
    twoGenerations(fixed, calendar);
    verifiesFromEitherDeclaration(fixed, calendar);
  }
}
