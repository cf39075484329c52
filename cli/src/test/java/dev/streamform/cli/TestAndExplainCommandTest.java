package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code streamform test} and {@code streamform explain} as a user meets them. */
class TestAndExplainCommandTest {
  private static final Path TIME = Path.of("../test-streams/fixtures/time");

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  @Test
  void testRunsEverySeedFixtureAndExitsZero() {
    assertThat(err.toString(), run("test", TIME.toString()), is(0));
    assertThat(
        out.toString(),
        containsString(
            "late_event (model customer_metrics)\n"
                + "PASS\n"
                + "3 events processed\n"
                + "3 changelog records emitted\n"
                + "1 late event dropped\n"));
    assertThat(
        out.toString(),
        containsString(
            "hourly_revenue (model hourly_revenue)\nPASS\n4 events processed\n3 revisions emitted\n"
                + "2 windows finalized\n1 late event dropped\n"));
    assertThat(out.toString(), containsString("9 fixtures on direct: 9 passed, 0 failed"));
  }

  /**
   * A path that is not there is a bad command line, said before anything is written or run (found
   * by a read-only audit of the test runner: it exited 1 after --junit-xml was replaced by the "did
   * not finish" placeholder, with nothing on stdout for --format json).
   */
  @Test
  void testNamesAMissingPath(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path xml = dir.resolve("junit.xml");
    java.nio.file.Files.writeString(xml, "<earlier/>");
    assertThat(
        run(
            "test",
            TIME.resolve("late-event").toString(),
            "no/such/project",
            "--format",
            "json",
            "--junit-xml",
            xml.toString()),
        is(2));
    assertThat(
        err.toString(),
        is(
            "streamform test: no/such/project: no such file or folder; give a project folder, a"
                + " folder of projects or a fixture file — see 'streamform test --help'\n"));
    assertThat(java.nio.file.Files.readString(xml), is("<earlier/>"));
  }

  @Test
  void testRefusesAnUnknownRunnerInOneLine() {
    assertThat(run("test", TIME.toString(), "--runner", "spark"), is(2));
    assertThat(err.toString(), containsString("--runner must be direct or flink, not 'spark'"));
    assertThat(err.toString().trim().lines().count(), is(1L));
  }

  @Test
  void explainShowsTheClockAndTheStateFingerprint() {
    assertThat(run("explain", TIME.resolve("retention").toString(), "customer_metrics"), is(0));
    assertThat(out.toString(), containsString("time=event(ordered_at) watermark=5m late=drop"));
    assertThat(
        out.toString(),
        containsString(
            "fingerprint=aggregate key=[customer_id] accumulators=[sum(amount): decimal(38,2)]"
                + " retention=10m"));
  }

  @Test
  void explainShowsAWindowedModelsWindowTriggerAndGeneration(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("models"));
    java.nio.file.Files.copy(TIME.resolve("late-event/sources.yml"), dir.resolve("sources.yml"));
    java.nio.file.Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n"
            + "  hourly:\n"
            + "    key: [customer_id]\n"
            + "    window: {size: 1h, every: 15m}\n"
            + "    allowed_lateness: 10m\n"
            + "    early_results: every 3 events\n"
            + "    generation: 2\n");
    java.nio.file.Files.writeString(
        dir.resolve("models/hourly.sql"),
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id");
    assertThat(err.toString(), run("explain", dir.toString(), "hourly"), is(0));
    assertThat(
        out.toString(),
        containsString(
            "Aggregate\n"
                + "  key=customer_id\n"
                + "  aggregates=sum(amount)\n"
                + "  window=hopping 1h every 15m (aligned to the epoch, UTC)\n"
                + "  allowed lateness=10m\n"
                + "  trigger=early results after every 3 on-time events of a key's window; on time"
                + " at the watermark; one revision per correction; final at end + allowed"
                + " lateness\n"
                + "  generation=2\n"
                + "  fingerprint=aggregate key=[customer_id] accumulators=[sum(amount):"
                + " decimal(38,2)] window=hopping 1h every 15m allowed_lateness=10m trigger=early"
                + " every 3 events\n"));
  }

  /**
   * A model's effect rules are part of its plan (ADR 0150): explain shows each after the Aggregate,
   * its name, its rule and what it sends where, the credential by where it comes from only.
   */
  @Test
  void explainShowsAModelsEffectRules(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("models"));
    java.nio.file.Files.copy(TIME.resolve("late-event/sources.yml"), dir.resolve("sources.yml"));
    java.nio.file.Files.writeString(
        dir.resolve("streamform.yml"),
        """
        models:
          hourly:
            key: [customer_id]
            window: 1h
            effects:
              - type: reward
                subject: customer_id
                when: "total_spend >= 100"
                provider: {kind: webhook, url: "http://127.0.0.1:8099/effects", idempotency: key,\
         receipts: true, authorization_env: REWARDS_AUTHORIZATION}
              - type: notice
                subject: window_start
                when: "total_spend < 0"
                mode: incremental
                provider: {kind: webhook, url: "https://example.com/notices", idempotency: none,\
         receipts: false}
        """);
    java.nio.file.Files.writeString(
        dir.resolve("models/hourly.sql"),
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id");
    assertThat(err.toString(), run("explain", dir.toString(), "hourly"), is(0));
    assertThat(
        out.toString(),
        containsString(
            "     ↓\n"
                + "Effects\n"
                + "  reward: when total_spend >= 100 for customer_id, mode=once; sends a webhook"
                + " to http://127.0.0.1:8099/effects idempotency=key receipts=true"
                + " authorization_env=REWARDS_AUTHORIZATION\n"
                + "  notice: when total_spend < 0 for window_start, mode=incremental; sends a"
                + " webhook to https://example.com/notices idempotency=none receipts=false\n"
                + "\nSteps"));
  }

  /**
   * Issue 35: {@code window: 1d} without {@code time_zone} is a UTC day and explain says so; with a
   * zone it names it; check warns about a month window with more than a month of lateness.
   */
  @Test
  void explainSaysACalendarDayWithoutZoneIsUtcAndCheckWarnsAboutLongMonthLateness(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("models"));
    java.nio.file.Files.copy(TIME.resolve("late-event/sources.yml"), dir.resolve("sources.yml"));
    java.nio.file.Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n  daily:\n"
            + "    key: [customer_id]\n    window: 1d\n  monthly:\n    key: [customer_id]\n"
            + "    window: 1mo\n    time_zone: Asia/Kolkata\n    allowed_lateness: 35d\n");
    for (String m : new String[] {"daily", "monthly"}) {
      java.nio.file.Files.writeString(
          dir.resolve("models/" + m + ".sql"),
          "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
              + " customer_id");
    }
    assertThat(err.toString(), run("explain", dir.toString(), "daily"), is(0));
    assertThat(
        out.toString(),
        containsString(
            "  window=calendar day in UTC (time_zone not declared: UTC by default) (from local"
                + " midnight to the next local midnight; docs/semantics.md §6.22)\n"));
    assertThat(err.toString(), run("explain", dir.toString(), "monthly"), is(0));
    assertThat(
        out.toString(), containsString("  window=calendar month in Asia/Kolkata (from local"));
    assertThat(run("check", dir.toString()), is(0));
    assertThat(
        err.toString(),
        containsString(
            "warning: streamform.yml:9: model 'monthly', key"
                + " 'allowed_lateness': allowed_lateness 35d is longer than a month"));
  }

  /** Issue 35: the HTML report of the Berlin calendar fixtures shows the 25- and 23-hour days. */
  @Test
  void theHtmlReportOfCalendarFixturesShowsTheirRealWindows(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path report = dir.resolve("berlin.html");
    assertThat(
        err.toString(),
        run(
            "test",
            "../test-streams/fixtures/calendar/daily-revenue-berlin",
            "--report",
            report.toString()),
        is(0));
    String html = java.nio.file.Files.readString(report);
    System.out.println("report: " + html.length() + " characters");
    for (String window :
        new String[] {
          "2026-10-24T22:00:00Z",
          "2026-10-25T23:00:00Z",
          "2026-03-28T23:00:00Z",
          "2026-03-29T22:00:00Z"
        }) {
      assertThat(window, html.contains(window), is(true));
    }
  }

  /**
   * Issue 30: explain walks the pipeline run builds, so the stateful duplicate detection of a
   * source with {@code event_id} is there, with its settings, and so is every other applied step.
   */
  @Test
  void explainShowsTheDuplicateDetectionOfASourceWithEventIdFromTheBuiltPipeline() {
    Path orders = Path.of("../test-streams/fixtures/duplicates/orders");
    assertThat(err.toString(), run("explain", orders.toString(), "customer_metrics"), is(0));
    String text = out.toString();
    assertThat(
        text,
        containsString(
            "  Duplicates (Deduplicate)\n"
                + "      Duplicates within: 30m\n"
                + "      Event id: order_id\n"));
    assertThat(text, containsString("  Clock (SourceClock)\n"));
    assertThat(text, containsString("    Changelog (KeyedChangelog)\n"));
    assertThat(text, containsString("  Quarantine (Flatten.PCollections)\n"));
  }

  /**
   * explain's steps and inspect-plan's manifest are read from the pipeline run builds: for a Kafka
   * source that is the log clock run builds on every runner (arrival order, idle_after), not the
   * fixtures' clock (offset order, contiguous from 0, no idle_after). Found by a review of how
   * results are reported (finding 4).
   */
  @Test
  void explainAndInspectPlanShowTheClockRunBuildsForAKafkaSource(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path late = TIME.resolve("late-event");
    for (String f : new String[] {"sources.yml", "streamform.yml"}) {
      java.nio.file.Files.copy(late.resolve(f), dir.resolve(f));
    }
    java.nio.file.Files.createDirectories(dir.resolve("models"));
    try (var models = java.nio.file.Files.list(late.resolve("models"))) {
      for (Path m : (Iterable<Path>) models::iterator) {
        java.nio.file.Files.copy(m, dir.resolve("models").resolve(m.getFileName()));
      }
    }
    java.nio.file.Files.writeString(
        dir.resolve("sources.yml"),
        java.nio.file.Files.readString(dir.resolve("sources.yml")) + "    idle_after: 30s\n");

    assertThat(err.toString(), run("explain", dir.toString(), "customer_metrics"), is(0));
    String clock = out.toString().substring(out.toString().indexOf("  Clock (SourceClock)"));
    clock = clock.split("\n  (?=\\S)")[0]; // its display lines, to the next step
    assertThat(clock, containsString("Idle after: 30s"));
    assertThat(clock, containsString("Partition order: arrival order"));

    out.getBuffer().setLength(0);
    assertThat(err.toString(), run("inspect-plan", dir.toString(), "customer_metrics"), is(0));
    assertThat(out.toString(), containsString("Idle after: 30s"));
    assertThat(out.toString(), containsString("Partition order: arrival order"));
  }

  @Test
  void explainNamesAMissingModel() {
    assertThat(run("explain", TIME.resolve("retention").toString(), "orders_by_day"), is(1));
    assertThat(err.toString(), containsString("no model named 'orders_by_day'"));
  }

  @Test
  void checkAlsoReadsTheFixtures(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path project = dir.resolve("p");
    java.nio.file.Files.createDirectories(project.resolve("models"));
    java.nio.file.Files.createDirectories(project.resolve("fixtures"));
    Path late = TIME.resolve("late-event");
    for (String f : new String[] {"sources.yml", "streamform.yml", "models/customer_metrics.sql"}) {
      java.nio.file.Files.copy(late.resolve(f), project.resolve(f));
    }
    java.nio.file.Files.writeString(
        project.resolve("fixtures/bad.yml"),
        "model: customer_metrics\n"
            + "given:\n"
            + "  - event: { customer_id: 42, amount: 1, ordered_at: \"10:00:00\" }\n");
    assertThat(run("check", project.toString()), is(1));
    assertThat(
        err.toString(),
        containsString(
            "fixtures/bad.yml:3: event 1, key 'ordered_at': '10:00:00' is a time of day without a"
                + " date"));
  }

  @Test
  void explainOfAnInvalidProjectPrintsItsProblemsAndPointsAtCheck(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    java.nio.file.Files.writeString(dir.resolve("sources.yml"), "sources:\n  orders: [\n");
    assertThat(run("explain", dir.toString(), "customer_metrics"), is(1));
    assertThat(err.toString(), containsString("sources.yml:"));
    assertThat(err.toString(), containsString("malformed YAML"));
    assertThat(
        err.toString(),
        containsString(
            "streamform explain: fix the problems above first (streamform check " + dir + ")"));
  }

  @Test
  void testRunsOneFixtureFileOrEveryProjectBelowAFolder() {
    assertThat(
        err.toString(),
        run("test", TIME.resolve("retention/fixtures/retention.yml").toString()),
        is(0));
    assertThat(out.toString(), containsString("retention (model customer_metrics)\nPASS\n"));
    assertThat(out.toString(), containsString("1 fixture on direct: 1 passed, 0 failed"));
    assertThat(run("test", TIME.getParent().toString()), is(0)); // time/ ... calendar/
    // every fixture file of every project below the folder, counted here (<project>/fixtures/*.yml)
    long files;
    try (java.util.stream.Stream<java.nio.file.Path> all =
        java.nio.file.Files.walk(TIME.getParent())) {
      files =
          all.filter(p -> p.toString().endsWith(".yml"))
              .filter(p -> p.getParent().getFileName().toString().equals("fixtures"))
              .filter(p -> !p.getParent().getParent().equals(TIME.getParent()))
              .count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(files, is(greaterThan(15L)));
    assertThat(
        out.toString(),
        containsString(files + " fixtures on direct: " + files + " passed, 0 failed"));
  }

  /**
   * A fixture's counts are grouped in thousands as {@code streamform run} prints its counts ({@code
   * 1,200 events processed}): 1,200 events of one customer, every one adding 0 (an insert, then
   * 1,199 updates), and 1,100 more filtered out by the WHERE.
   */
  @Test
  void testGroupsLargeCountsInThousandsAsRunDoes(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("models"));
    java.nio.file.Files.createDirectories(dir.resolve("fixtures"));
    java.nio.file.Files.copy(TIME.resolve("late-event/sources.yml"), dir.resolve("sources.yml"));
    java.nio.file.Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n");
    java.nio.file.Files.writeString(
        dir.resolve("models/customer_metrics.sql"),
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') WHERE amount >= 0"
            + " GROUP BY customer_id\n");
    StringBuilder fixture = new StringBuilder("model: customer_metrics\n\ngiven:\n");
    for (int i = 0; i < 2300; i++) { // one a second from 10:00, in order: none late
      fixture.append(
          String.format(
              java.util.Locale.ROOT,
              "  - event: { customer_id: 1, amount: %d, ordered_at: \"2026-08-30T10:%02d:%02dZ\""
                  + " }\n",
              i < 1200 ? 0 : -1,
              i / 60,
              i % 60));
    }
    fixture.append("\nexpect:\n  - { op: insert, customer_id: 1, total_spend: 0 }\n");
    fixture.append("  - { op: update, customer_id: 1, total_spend: 0 }\n".repeat(1199));
    java.nio.file.Files.writeString(dir.resolve("fixtures/many.yml"), fixture.toString());
    int status = run("test", dir.toString());
    assertThat(out + "\n" + err, status, is(0));
    assertThat(
        out.toString(),
        containsString(
            "many (model customer_metrics)\nPASS\n1,200 events processed\n"
                + "1,200 changelog records emitted\n1,100 events filtered out by WHERE\n"));
  }

  /**
   * A scorer class that is not on the class path is the declaration's problem, said in one line by
   * explain and inspect-plan as test says it, never as an internal error (ADR 0176's audit).
   */
  @Test
  void explainAndInspectPlanSayAScorerClassNotOnTheClassPathInOneLine(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path from = Path.of("../test-streams/fixtures/decisions/receipts");
    java.nio.file.Files.createDirectories(dir.resolve("models"));
    java.nio.file.Files.copy(from.resolve("sources.yml"), dir.resolve("sources.yml"));
    try (var models = java.nio.file.Files.list(from.resolve("models"))) {
      for (Path f : models.toList()) {
        java.nio.file.Files.copy(f, dir.resolve("models").resolve(f.getFileName().toString()));
      }
    }
    java.nio.file.Files.writeString(
        dir.resolve("streamform.yml"),
        java.nio.file.Files.readString(from.resolve("streamform.yml"))
            .replaceFirst(
                "linear: models/receipt_risk.linear.yml", "scorer: com.example.NoSuchScorer"));
    for (String command : new String[] {"explain", "inspect-plan"}) {
      StringWriter e = new StringWriter();
      int exit =
          Streamform.run(
              new PrintWriter(new StringWriter()),
              new PrintWriter(e),
              command,
              dir.toString(),
              "receipt_risk");
      assertThat(command + ": " + e, exit, is(1));
      assertThat(
          e.toString(),
          is(
              "streamform "
                  + command
                  + ": streamform.yml: model 'receipt_risk', key 'decisions.scorer': class"
                  + " com.example.NoSuchScorer is not on the class path — put the class on the"
                  + " class path of the pipeline that runs the model (a Java author's pipeline,"
                  + " docs/guides/java-authors.md), or score with linear:"
                  + " models/<model>.linear.yml\n"));
    }
  }
}
