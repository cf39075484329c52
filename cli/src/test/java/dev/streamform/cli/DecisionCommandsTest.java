package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamform replay-orders} and {@code streamform decisions show} on the receipts project:
 * as of occurrence, 20 arrival orders on the DirectRunner and 5 on Flink at parallelism 2 (two of
 * them with a partition delivering after the other) give identical decisions and final state;
 * latest available, applied in log order too (ADR 0112), decides as order 1; a revised decision is
 * traced to its event, cutoff, state revision and digests.
 */
class DecisionCommandsTest {
  private static final Path RECEIPTS = Path.of("../test-streams/fixtures/decisions/receipts");

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  @Test
  void asOfOccurrenceIsIdenticalInTwentyArrivalOrdersOnTheDirectRunner() {
    assertThat(
        err.toString(),
        run(
            "replay-orders",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "20",
            "--seed",
            "7"),
        is(0));
    String o = out.toString();
    assertThat(
        o,
        containsString(
            "replay-orders: model receipt_risk (as_of_occurrence), fixture"
                + " offline_uploads, 20 arrival orders on direct, seed 7\n"));
    assertThat(o, containsString("order 20 (100101010011): identical to order 1\n"));
    assertThat(o.split("identical to order 1\n", -1).length - 1, is(20));
    assertThat(
        o,
        containsString(
            "20 orders: 10 decisions, 4 revised, 2 dead-lettered per order; final feature state of"
                + " 2 keys\n"
                + "  key [7]: revision 6: 0-0, 1-0, 0-1, 1-1, 0-4 (late), 0-5\n"
                + "  key [8]: revision 2: 0-2, 1-4 (late)\n"));
    assertThat(
        o,
        containsString(
            "identical decisions and final feature state in every order — as"
                + " as_of_occurrence requires"));
  }

  /**
   * The contract would permit latest_available to differ decision by decision; the stage applies a
   * key's events in log order (ADR 0112), so every order decides as order 1.
   */
  @Test
  void latestAvailableDecidesAsOrderOneInEveryOrder() {
    assertThat(
        err.toString(),
        run(
            "replay-orders",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk_latest",
            "--fixture",
            "offline_uploads",
            "--orders",
            "3",
            "--seed",
            "7"),
        is(0));
    String o = out.toString();
    assertThat(o, not(containsString("differences from order 1")));
    assertThat(o, containsString("identical decisions and final feature state in every order"));
    assertThat(o, not(containsString("not permitted")));
  }

  /**
   * {@code --fixture} takes the fixture as a shell completes it too — a path from here or from the
   * project, {@code fixtures/x.yml}: it was looked up as {@code fixtures/fixtures/x.yml} and
   * refused (found by a read-only audit of the command line).
   */
  @Test
  void theFixtureMayBeGivenAsAPath() {
    for (String given :
        List.of(
            "fixtures/offline_uploads.yml",
            RECEIPTS.resolve("fixtures/offline_uploads.yml").toString())) {
      int status =
          run(
              "replay-orders",
              RECEIPTS.toString(),
              "--model",
              "receipt_risk_latest",
              "--fixture",
              given,
              "--orders",
              "2",
              "--seed",
              "7");
      assertThat(given + ": " + err, status, is(0));
    }
  }

  @Test
  void repeatsOfAReceiptIdMakeNoDecisionAndBadRepeatsOrRestoresAreRefused() {
    Path retried = Path.of("../test-streams/fixtures/decisions/retried_receipts");
    assertThat(
        err.toString(),
        run(
            "replay-orders",
            retried.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "2",
            "--duplicates"),
        is(0));
    assertThat(
        out.toString(), containsString("  0-1, an exact repeat of 0-0 (before the middle)\n"));
    assertThat(
        out.toString(), containsString("repeats: in every order, no repeat made a decision"));
    // the receipts project declares no event_id: a repeat could not be told from a new event
    assertThat(
        run(
            "replay-orders",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "1",
            "--duplicates"),
        is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform replay-orders: source `receipts` declares no event_id: a repeat could not"
                + " be told from a new event."));
    assertThat(
        run(
            "replay-orders",
            retried.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "1",
            "--restore-at",
            "0"),
        is(2));
    assertThat(err.toString(), containsString("--restore-at must be at least 1"));
    assertThat(
        run(
            "replay-orders",
            retried.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "1",
            "--duplicates",
            "--restore-at",
            "14"),
        is(Streamform.USAGE));
    assertThat(
        err.toString(),
        containsString(
            "--restore-at 14 is past the end: fixture uploads has 14 events with its repeats; give"
                + " 1 to 13, so that an event comes after the restore"));
  }

  @Test
  void oneOrderOfOneEventIsCountedInTheSingular(@TempDir Path dir) throws Exception {
    Path project = dir.resolve("receipts");
    try (Stream<Path> files = Files.walk(RECEIPTS)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path to = project.resolve(RECEIPTS.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!RECEIPTS.relativize(f).startsWith("fixtures")) {
          Files.copy(f, to);
        }
      }
    }
    Files.writeString(
        project.resolve("fixtures/one.yml"),
        """
        model: receipt_risk
        given:
          - event: { merchant_id: 7, amount: 10.00, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
        """);
    assertThat(
        err.toString(),
        run("replay-orders", project.toString(), "--model", "receipt_risk", "--orders", "1"),
        is(0));
    String o = out.toString();
    assertThat(
        o,
        containsString(
            "replay-orders: model receipt_risk (as_of_occurrence), fixture one, 1 arrival order on"
                + " direct, seed 1\n"));
    assertThat(
        o,
        containsString(
            "1 order: 1 decision, 0 revised, 0 dead-lettered per order; final feature state of 1"
                + " key\n"
                + "  key [7]: revision 1: 0-0\n"));
  }

  /**
   * {@code --delayed-partition} adds one order per partition that delivers after every other; a
   * fixture of one partition has no other, so none is added, and the header says so rather than
   * leave the user to count the orders.
   */
  @Test
  void aDelayedPartitionOfAOnePartitionFixtureIsSaidToAddNoOrder(@TempDir Path dir)
      throws Exception {
    Path project = dir.resolve("receipts");
    try (Stream<Path> files = Files.walk(RECEIPTS)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path to = project.resolve(RECEIPTS.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!RECEIPTS.relativize(f).startsWith("fixtures")) {
          Files.copy(f, to);
        }
      }
    }
    Files.writeString(
        project.resolve("fixtures/one.yml"),
        """
        model: receipt_risk
        given:
          - event: { merchant_id: 7, amount: 10.00, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
          - event: { merchant_id: 7, amount: 20.00, occurred_at: "2026-08-30T10:05:00Z", received_at: "2026-08-30T10:05:00Z" }
        """);
    assertThat(
        err.toString(),
        run(
            "replay-orders",
            project.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "2",
            "--delayed-partition"),
        is(0));
    assertThat(
        out.toString(),
        startsWith(
            "replay-orders: model receipt_risk (as_of_occurrence), fixture one, 1 arrival order on"
                + " direct, seed 1\n"
                + "fixture one has 1 distinct arrival order of its partitions' logs: 2 asked, each"
                + " run once\n"
                + "--delayed-partition: fixture one has one partition (0): no delayed order to"
                + " add\n"
                + "order 1 (as written): identical to order 1\n"));
  }

  @Test
  void aRestorePointPastTheFixturesEndIsAUsageErrorNamingTheValidRange() {
    int status =
        run(
            "replay-orders",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "1",
            "--restore-at",
            "99");
    assertThat(err.toString(), status, is(Streamform.USAGE));
    assertThat(
        err.toString(),
        is(
            "streamform replay-orders: --restore-at 99 is past the end: fixture offline_uploads"
                + " has 10 events; give 1 to 9, so that an event comes after the restore — see"
                + " 'streamform replay-orders --help'\n"));
    assertThat(out.toString(), is("")); // refused before anything ran
  }

  @Test
  void onFlinkAtParallelismTwoAsOfOccurrenceIsIdenticalAndLatestAvailablePermitted() {
    assertThat(
        err.toString(),
        run(
            "replay-orders",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk",
            "--orders",
            "3",
            "--delayed-partition",
            "--runner",
            "flink",
            "--parallelism",
            "2"),
        is(0));
    assertThat(
        out.toString(),
        containsString("5 arrival orders on flink [local] parallelism 2, seed 1\n"));
    assertThat(
        out.toString(),
        containsString("order 4 (111111000000, partition 0 delayed): identical to order 1\n"));
    assertThat(
        out.toString(),
        containsString("order 5 (000000111111, partition 1 delayed): identical to order 1\n"));
    assertThat(
        out.toString(),
        containsString("identical decisions and final feature state in every order"));
    assertThat(
        err.toString(),
        run(
            "replay-orders",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk_latest",
            "--fixture",
            "offline_uploads",
            "--orders",
            "2",
            "--runner",
            "flink",
            "--parallelism",
            "2"),
        is(0));
    assertThat(out.toString(), not(containsString("NOT permitted")));
  }

  @Test
  void showTracesARevisedDecisionToItsEventCutoffAndDigests() throws Exception {
    String digest =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(
                        Files.readAllBytes(RECEIPTS.resolve("models/receipt_risk.linear.yml"))));
    assertThat(
        err.toString(),
        run("decisions", "show", RECEIPTS.toString(), "--model", "receipt_risk", "--event", "4"),
        is(0));
    String o = out.toString();
    assertThat(
        o,
        containsString(
            "  scored, revision 1, of event 1-0 (partition 1, offset 0; fixture event 4, line 17)\n"
                + "  occurred_at: 2026-08-30T10:10:00.000Z\n"
                + "  arrived_at: 2026-08-30T10:12:00.000Z\n"
                + "  arrival_watermark: undefined (nothing earlier on its partition)\n"
                + "  scored_at: 2026-08-30T10:10:00.000Z\n"
                + "  contract: as_of_occurrence\n"
                + "  state_cutoff: 2026-08-30T10:10:00.000Z\n"
                + "  state_revision: 4\n"
                + "  model_digest: "
                + digest
                + "\n"));
    assertThat(o, containsString("  revised, revision 2, of event 1-0"));
    assertThat(
        o, containsString("  state_cutoff: 2026-08-30T11:00:00.000Z\n  state_revision: 5\n"));
    assertThat(
        o,
        containsString(
            "  revised_by: 0-4\n  features: {receipts_1h=2.0, spend_1h=160.0}\n  score: 0.76\n"));
    // the revision names the first decision, which is still in the ledger
    String first = o.substring(o.indexOf("decision ") + 9, o.indexOf("decision ") + 9 + 64);
    assertThat(o, containsString("  supersedes: " + first + "\n"));
  }

  @Test
  void showFindsALateOrDeadLetteredEventByItsDeclaredId() {
    Path retried = Path.of("../test-streams/fixtures/decisions/retried_receipts");
    // r7 arrived late (revising), r6 was dead-lettered for its clock skew: neither has a decision
    assertThat(
        err.toString(),
        run("decisions", "show", retried.toString(), "--model", "receipt_risk", "--event", "r7"),
        is(0));
    assertThat(out.toString(), containsString("revising: event r7 (partition"));
    assertThat(
        err.toString(),
        run("decisions", "show", retried.toString(), "--model", "receipt_risk", "--event", "r6"),
        is(0));
    assertThat(out.toString(), containsString("dead_lettered: event r6 (partition"));
  }

  /**
   * An event that makes nothing to show says why: dropped as a duplicate, or no such event in the
   * fixture (found by a read-only audit of decisions: both said "no decision or routed event").
   */
  @Test
  void showSaysAnEventWasDroppedAsADuplicateOrIsNotInTheFixture(@TempDir Path dir)
      throws Exception {
    Path retried = Path.of("../test-streams/fixtures/decisions/retried_receipts");
    Path project = dir.resolve("retried");
    try (Stream<Path> files = Files.walk(retried)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path to = project.resolve(retried.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    Path uploads = project.resolve("fixtures/uploads.yml");
    String text = Files.readString(uploads);
    String r1 = text.lines().filter(l -> l.contains("\"r1\"")).findFirst().orElseThrow();
    // an exact repeat of r1, given right after it: event 2 on partition 0
    Files.writeString(uploads, text.replace(r1 + "\n", r1 + "\n" + r1 + "\n"));
    assertThat(
        run("decisions", "show", project.toString(), "--model", "receipt_risk", "--event", "2"),
        is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform decisions show: event 2 (line 17, 0-1) was dropped as a duplicate: a repeat"
                + " of an earlier event with the same receipt_id, which makes no decision of its"
                + " own\n"));
    err.getBuffer().setLength(0);
    assertThat(
        run("decisions", "show", project.toString(), "--model", "receipt_risk", "--event", "99"),
        is(1));
    assertThat(
        err.toString(),
        containsString(
            "has no event 99: give its number in the fixture (1 to 11), its place"
                + " <partition>-<offset>, or its receipt_id\n"));
  }

  @Test
  void explainKnowsAScoringModel() {
    assertThat(err.toString(), run("explain", RECEIPTS.toString(), "receipt_risk"), is(0));
    assertThat(
        out.toString(),
        containsString(
            "Decisions\n  contract=as_of_occurrence\n"
                + "  scorer=linear models/receipt_risk.linear.yml digest="));
    assertThat(
        out.toString(),
        containsString(
            "  lateness=10m late_action=revise late_updates_state=true\n"
                + "  max_clock_skew=5m arrival=received_at\n"));
    // the steps of the pipeline run builds for it (issue 32): the fixtures' ScoreEvents
    assertThat(out.toString(), containsString("  Clock (SourceClock)\n"));
    assertThat(
        out.toString(),
        containsString(
            "  Model (ScoreEvents)\n      Feature contract: as_of_occurrence\n"
                + "      Features over: 1h\n"
                + "      Features: sum(amount) as spend_1h, count(*) as receipts_1h\n"));
    assertThat(out.toString(), containsString("  DeadLetterRecords (MapElements)\n"));
  }

  @Test
  void showRefusesAModelWithoutDecisions() {
    assertThat(run("decisions", "show", RECEIPTS.toString(), "--model", "nope"), is(2));
    assertThat(
        err.toString(),
        containsString(
            "no model named 'nope'; models: receipt_risk,"
                + " receipt_risk_reconciled, receipt_risk_latest"));
  }

  @Test
  void showFromTheLedgerRefusesRunnerOptionsRatherThanIgnoreThem() {
    // with --jdbc-url nothing runs: the runner options were dropped without a word (ADR 0087)
    assertThat(
        run(
            "decisions",
            "show",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk",
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:1/postgres",
            "--runner",
            "flink",
            "--parallelism",
            "2"),
        is(2));
    assertThat(
        err.toString(),
        is(
            "streamform decisions show: --runner flink and --parallelism 2 choose where a fixture"
                + " runs, and --jdbc-url reads the decision ledger, which runs nothing: leave them"
                + " out, or leave out --jdbc-url to run a fixture — see 'streamform decisions show"
                + " --help'\n"));
  }

  @Test
  void showOfAFixtureRefusesDatabaseCredentialsRatherThanIgnoreThem() {
    // without --jdbc-url a fixture runs, and no database is read
    assertThat(
        run(
            "decisions",
            "show",
            RECEIPTS.toString(),
            "--model",
            "receipt_risk",
            "--jdbc-user",
            "postgres",
            "--jdbc-password-file",
            "pw.txt"),
        is(2));
    assertThat(
        err.toString(),
        is(
            "streamform decisions show: --jdbc-user postgres and --jdbc-password-file pw.txt say"
                + " who connects to the database --jdbc-url names, and no --jdbc-url is given: add"
                + " --jdbc-url URL, or leave them out — see 'streamform decisions show --help'\n"));
  }

  @Test
  void withoutModelTheProjectsOnlyScoringModelIsShown(@TempDir Path dir) throws Exception {
    // the receipts project with receipt_risk as its only model
    try (Stream<Path> files = Files.walk(RECEIPTS)) {
      for (Path from : files.sorted(Comparator.naturalOrder()).toList()) {
        Path to = dir.resolve(RECEIPTS.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    String yml = Files.readString(dir.resolve("streamform.yml"));
    Files.writeString(
        dir.resolve("streamform.yml"), yml.substring(0, yml.indexOf("  receipt_risk_reconciled:")));
    Files.delete(dir.resolve("models/receipt_risk_reconciled.sql"));
    Files.delete(dir.resolve("models/receipt_risk_latest.sql"));
    Files.delete(dir.resolve("fixtures/reconciled.yml"));

    assertThat(err.toString(), run("decisions", "show", dir.toString(), "--event", "4"), is(0));
    assertThat(out.toString(), containsString("model receipt_risk: "));
    assertThat(out.toString(), containsString("  revised, revision 2, of event 1-0"));
  }

  @Test
  void withoutModelAProjectOfSeveralScoringModelsNamesThem() {
    assertThat(run("decisions", "show", RECEIPTS.toString()), is(2));
    assertThat(
        err.toString(),
        containsString(
            "--model is needed: the project's scoring models are receipt_risk,"
                + " receipt_risk_reconciled, receipt_risk_latest"));
  }
}
