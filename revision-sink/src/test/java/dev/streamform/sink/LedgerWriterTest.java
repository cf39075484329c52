package dev.streamform.sink;

import static dev.streamform.sink.Revisions.finalOf;
import static dev.streamform.sink.Revisions.preview;
import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.windows.WindowRevision;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink's faults (issue 12), each asserting what the tables hold afterwards. Hourly revenue of
 * merchants 7 and 8 on 2026-08-30; {@code revision(7, 10, 2, "26")} is revision 2 (revenue 26) of
 * merchant 7's window [10:00, 11:00).
 */
class LedgerWriterTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;
  private LedgerWriter writer;
  private Ledger ledger;

  @BeforeEach
  void freshDatabase() {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 2, 1_000);
    writer = new LedgerWriter(pool, Duration.ofSeconds(60));
    ledger = Ledger.at(pool);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  @Test
  void revisionTwoBeforeRevisionOneIsHeldThenAppliedWhenTheGapCloses() throws Exception {
    LedgerWriter.Outcome early = writer.write(List.of(revision(7, 10, 2, "26")));
    assertThat(early.held(), equalTo(1));
    assertThat(early.applied(), equalTo(0));
    assertThat(
        rows("SELECT revision, final, aggregate_values FROM streamform.held_revision"),
        equalTo(List.of("2 false {\"revenue\": \"26\"}")));
    assertThat(rows("SELECT count(*) FROM streamform.projection"), equalTo(List.of("0")));

    LedgerWriter.Outcome closing = writer.write(List.of(revision(7, 10, 1, "30")));
    assertThat(closing.applied(), equalTo(2));
    assertThat(closing.released(), equalTo(1));
    assertThat(
        rows("SELECT revision, status, aggregate_values FROM streamform.projection"),
        equalTo(List.of("2 corrected {\"revenue\": \"26\"}")));
    assertThat(
        rows(
            "SELECT revision, predecessor, status, aggregate_values FROM"
                + " streamform.correction_ledger ORDER BY revision"),
        equalTo(
            List.of(
                "1 null on_time {\"revenue\": \"30\"}", "2 1 corrected {\"revenue\": \"26\"}")));
    assertThat(rows("SELECT count(*) FROM streamform.held_revision"), equalTo(List.of("0")));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("1 projection, 2 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
  }

  /**
   * Issue 35: a calendar day's revisions carry the zone in their logical_window_id; verify, told
   * the zone, recomputes the same id (without it, the id would be a mismatch).
   */
  @Test
  void aCalendarDaysIdsVerifyWithTheirZone() throws Exception {
    WindowRevision hourly = revision(7, 10, 1, "30");
    java.time.Instant start = java.time.Instant.parse("2026-10-24T22:00:00Z");
    java.time.Instant end = java.time.Instant.parse("2026-10-25T23:00:00Z");
    String logical =
        dev.streamform.core.digest.RevisionIdentity.logicalWindowId(
            Revisions.MODEL, WindowRevision.plainValues(hourly.key()), start, end, "Europe/Berlin");
    WindowRevision day =
        hourly.toBuilder()
            .setWindowStart(Times.toJoda(start))
            .setWindowEnd(Times.toJoda(end))
            .setLogicalWindowId(logical)
            .setProjectionId(dev.streamform.core.digest.RevisionIdentity.projectionId(logical, 1))
            .setWindowLocal("2026-10-25")
            .build();
    writer.write(List.of(day));
    assertThat(
        ledger.verify(Revisions.MODEL, "Europe/Berlin").summary(),
        equalTo("1 projection, 1 revision, 0 gaps, 0 mismatches, 0 conflicts"));
    assertThat(
        ledger.verify(Revisions.MODEL, "UTC").summary(),
        equalTo("1 projection, 1 revision, 0 gaps, 1 mismatch, 0 conflicts"));
  }

  @Test
  void aFinalRecordAheadOfItsRevisionWaitsForIt() throws Exception {
    WindowRevision r2 = revision(7, 10, 2, "26");
    writer.write(List.of(revision(7, 10, 1, "30"), finalOf(r2)));
    assertThat(
        rows("SELECT revision, status FROM streamform.projection"), equalTo(List.of("1 on_time")));
    assertThat(
        rows("SELECT revision, final FROM streamform.held_revision"), equalTo(List.of("2 true")));

    LedgerWriter.Outcome closing = writer.write(List.of(r2));
    assertThat(closing.finalized(), equalTo(1));
    assertThat(
        rows("SELECT revision, status, finalized_at IS NOT NULL FROM streamform.projection"),
        equalTo(List.of("2 final true")));
    assertThat(rows("SELECT count(*) FROM streamform.held_revision"), equalTo(List.of("0")));
    assertThat(
        "a final record is no revision",
        rows("SELECT count(*) FROM streamform.correction_ledger"),
        equalTo(List.of("2")));
  }

  @Test
  void theSameRevisionsDeliveredTwiceChangeNothing() throws Exception {
    List<WindowRevision> run =
        List.of(
            revision(7, 10, 1, "30"),
            revision(8, 10, 1, "12"),
            revision(7, 10, 2, "26"),
            finalOf(revision(7, 10, 2, "26")),
            preview(8, 11, "3"));
    LedgerWriter.Outcome first = writer.write(run);
    assertThat(
        List.of(first.applied(), first.finalized(), first.replayed(), first.previewsIgnored()),
        equalTo(List.of(3, 1, 0, 1)));
    String before =
        String.join(
            "\n",
            rows(
                "SELECT projection_id, revision, status, aggregate_digest, updated_at FROM"
                    + " streamform.projection ORDER BY 1"));

    // a job restored from a checkpoint delivers them again, in one batch and one by one
    LedgerWriter.Outcome again = writer.write(run);
    int replayedOneByOne = 0;
    for (WindowRevision r : run) {
      replayedOneByOne += writer.write(List.of(r)).replayed();
    }
    assertThat(
        List.of(again.applied(), again.finalized(), again.replayed(), again.conflicts().size()),
        equalTo(List.of(0, 0, 4, 0)));
    assertThat(replayedOneByOne, equalTo(4));
    assertThat(rows("SELECT count(*) FROM streamform.correction_ledger"), equalTo(List.of("3")));
    assertThat(
        String.join(
            "\n",
            rows(
                "SELECT projection_id, revision, status, aggregate_digest, updated_at FROM"
                    + " streamform.projection ORDER BY 1")),
        equalTo(before));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("2 projections, 3 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
  }

  @Test
  void aConflictingRevisionIsRefusedRecordedAndReportedNeverOverwritten() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "30"), revision(7, 10, 2, "26")));
    WindowRevision other = revision(7, 10, 2, "25");

    LedgerWriter.Outcome refused = writer.write(List.of(other));
    assertThat(refused.conflicts().size(), equalTo(1));
    RevisionConflict c = refused.conflicts().get(0);
    assertThat(
        List.of(c.revision(), c.storedDigest(), c.offeredDigest()),
        equalTo(List.of(2, revision(7, 10, 2, "26").aggregateDigest(), other.aggregateDigest())));
    assertThat(c.reason(), equalTo("revision 2 is recorded with another digest"));
    assertThat(
        rows("SELECT revision, aggregate_values FROM streamform.projection"),
        equalTo(List.of("2 {\"revenue\": \"26\"}")));
    assertThat(
        rows("SELECT aggregate_values FROM streamform.correction_ledger WHERE revision = 2"),
        equalTo(List.of("{\"revenue\": \"26\"}")));

    // delivered again: refused again, recorded once
    assertThat(writer.write(List.of(other)).conflicts().size(), equalTo(1));
    assertThat(
        rows(
            "SELECT revision, final, stored_digest = '"
                + c.storedDigest()
                + "', offered_values"
                + " FROM streamform.revision_conflict"),
        equalTo(List.of("2 false true {\"revenue\": \"25\"}")));
    LedgerVerification v = ledger.verify(Revisions.MODEL);
    assertThat(v.summary(), equalTo("1 projection, 2 revisions, 0 gaps, 0 mismatches, 1 conflict"));
    assertThat(v.clean(), equalTo(false));
  }

  /**
   * A run counts the conflicts refused while it ran (docs/decisions/0040): a conflict an earlier
   * run recorded and this one offers again is refused again and counted for this run too, while the
   * table keeps one row for it.
   */
  @Test
  void aConflictOfferedAgainByALaterRunIsCountedForThatRunAndRecordedOnce() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "30"), revision(8, 10, 1, "3")));
    WindowRevision other = revision(7, 10, 1, "31");

    long firstRun = ledger.lastRefusal();
    writer.write(List.of(other));
    assertThat(ledger.conflictsRefusedSince(Revisions.MODEL, 1, firstRun), equalTo(1L));

    // a later run (another writer) offers the same record again
    long secondRun = ledger.lastRefusal();
    LedgerWriter again = new LedgerWriter(pool, Duration.ofSeconds(60));
    assertThat(again.write(List.of(other, revision(8, 10, 1, "3"))).conflicts().size(), equalTo(1));
    assertThat(ledger.conflictsRefusedSince(Revisions.MODEL, 1, secondRun), equalTo(1L));
    assertThat(ledger.conflictsRefusedSince(Revisions.MODEL, 2, secondRun), equalTo(0L));

    // a run that offers nothing conflicting counts none
    long thirdRun = ledger.lastRefusal();
    again.write(List.of(revision(8, 10, 1, "3")));
    assertThat(ledger.conflictsRefusedSince(Revisions.MODEL, 1, thirdRun), equalTo(0L));

    assertThat(rows("SELECT count(*) FROM streamform.revision_conflict"), equalTo(List.of("1")));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("2 projections, 2 revisions, 0 gaps, 0 mismatches, 1 conflict"));
  }

  @Test
  void aRevisionAfterTheFinalOneAndAContradictingFinalAreConflicts() throws Exception {
    WindowRevision r1 = revision(7, 10, 1, "30");
    writer.write(List.of(r1, finalOf(r1)));
    LedgerWriter.Outcome after =
        writer.write(List.of(revision(7, 10, 2, "26"), finalOf(revision(7, 10, 1, "31"))));
    assertThat(
        after.conflicts().stream().map(RevisionConflict::reason).toList(),
        equalTo(
            List.of(
                "the window is final at revision 1 with another digest",
                "revision 2 after the window's final revision 1")));
    assertThat(
        rows("SELECT revision, status FROM streamform.projection"), equalTo(List.of("1 final")));
    assertThat(rows("SELECT count(*) FROM streamform.held_revision"), equalTo(List.of("0")));
  }

  @Test
  void anOldGenerationWritingAfterTheAliasMovedLeavesTheCanonicalViewAlone() throws Exception {
    // generation 1 writes first: it becomes canonical
    writer.write(List.of(revision(7, 10, 1, "30", 1)));
    assertThat(canonical(), equalTo(List.of("1 1 {\"revenue\": \"30\"}")));
    // generation 2 (a new policy) writes beside it; the canonical view does not move by itself
    writer.write(List.of(revision(7, 10, 1, "31", 2)));
    assertThat(canonical(), equalTo(List.of("1 1 {\"revenue\": \"30\"}")));

    Ledger.AliasChange promoted = ledger.setCanonicalGeneration(Revisions.MODEL, 2);
    assertThat(
        List.of(promoted.previous().getAsInt(), promoted.generation(), promoted.projections()),
        equalTo(List.of(1, 2, 1)));
    assertThat(canonical(), equalTo(List.of("2 1 {\"revenue\": \"31\"}")));

    // the old job is still running and writes a correction to its own projection
    LedgerWriter.Outcome old = writer.write(List.of(revision(7, 10, 2, "26", 1)));
    assertThat(old.applied(), equalTo(1));
    assertThat(canonical(), equalTo(List.of("2 1 {\"revenue\": \"31\"}")));
    assertThat(
        rows("SELECT generation, revision, aggregate_values FROM streamform.projection ORDER BY 1"),
        equalTo(List.of("1 2 {\"revenue\": \"26\"}", "2 1 {\"revenue\": \"31\"}")));

    // rolling back shows generation 1 again, with everything it wrote; nothing was deleted
    ledger.setCanonicalGeneration(Revisions.MODEL, 1);
    assertThat(canonical(), equalTo(List.of("1 2 {\"revenue\": \"26\"}")));
    assertThat(rows("SELECT count(*) FROM streamform.correction_ledger"), equalTo(List.of("3")));
    assertThat(
        rows(
            "SELECT generation, previous_generation, set_by FROM streamform.canonical_alias_history"
                + " ORDER BY set_at, generation"),
        equalTo(List.of("1 null first write", "2 1 alias set", "1 2 alias set")));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("2 projections, 3 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
  }

  @Test
  void theDatabaseRestartedMidStreamLosesAndDoublesNothing() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "30"), revision(8, 10, 1, "12")));
    List<WindowRevision> second =
        List.of(
            revision(7, 10, 2, "26"), revision(9, 10, 1, "5"), finalOf(revision(8, 10, 1, "12")));

    POSTGRES.server().stop();
    CompletableFuture<LedgerWriter.Outcome> writing =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return writer.write(second); // retries while the database is down
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
    Thread.sleep(1_500);
    assertThat("still waiting for the database", writing.isDone(), equalTo(false));
    POSTGRES.server().start();
    LedgerWriter.Outcome resumed = writing.get(60, TimeUnit.SECONDS);
    assertThat(resumed.retries(), greaterThanOrEqualTo(1));
    assertThat(
        List.of(resumed.applied(), resumed.finalized(), resumed.replayed()),
        equalTo(List.of(2, 1, 0)));

    // the runner retries the bundle whose acknowledgement it never saw: a no-op
    LedgerWriter.Outcome retried = writer.write(second);
    assertThat(
        List.of(retried.applied(), retried.finalized(), retried.replayed()),
        equalTo(List.of(0, 0, 3)));
    assertThat(
        rows(
            "SELECT (window_key->>'merchant_id'), revision, status, aggregate_values FROM"
                + " streamform.projection ORDER BY 1"),
        equalTo(
            List.of(
                "7 2 corrected {\"revenue\": \"26\"}",
                "8 1 final {\"revenue\": \"12\"}",
                "9 1 on_time {\"revenue\": \"5\"}")));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("3 projections, 4 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
  }

  @Test
  void theLedgerIsAppendOnly() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "30")));
    SQLException update =
        assertThrows(
            SQLException.class,
            () ->
                execute(
                    "UPDATE streamform.correction_ledger SET aggregate_values = '{\"revenue\":"
                        + " \"1\"}'"));
    assertThat(update.getMessage(), containsString("append-only: UPDATE refused"));
    SQLException delete =
        assertThrows(SQLException.class, () -> execute("DELETE FROM streamform.correction_ledger"));
    assertThat(delete.getMessage(), containsString("append-only: DELETE refused"));
    assertThat(rows("SELECT count(*) FROM streamform.correction_ledger"), equalTo(List.of("1")));
  }

  @Test
  void verifyCatchesAPlantedGapAndAPlantedMismatch() throws Exception {
    writer.write(
        List.of(
            revision(7, 10, 1, "30"),
            revision(7, 10, 2, "26"),
            revision(7, 10, 3, "20"),
            revision(8, 10, 1, "12")));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("2 projections, 4 revisions, 0 gaps, 0 mismatches, 0 conflicts"));

    // plant a gap: revision 2 of merchant 7 disappears (past the append-only trigger)
    execute(
        "ALTER TABLE streamform.correction_ledger DISABLE TRIGGER correction_ledger_append_only;"
            + " DELETE FROM streamform.correction_ledger WHERE revision = 2; ALTER TABLE"
            + " streamform.correction_ledger ENABLE TRIGGER correction_ledger_append_only");
    LedgerVerification gap = ledger.verify(Revisions.MODEL);
    assertThat(
        gap.summary(), equalTo("2 projections, 3 revisions, 1 gap, 0 mismatches, 0 conflicts"));
    assertThat(
        gap.defects().get(0),
        containsString(
            "gap: merchant_id=7 [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z)" + " generation 1"));
    assertThat(gap.defects().get(0), containsString("revision 2 is missing"));

    // plant a mismatch: merchant 8's projection says 99 (with a digest that matches 99)
    String digest99 =
        dev.streamform.core.digest.RevisionIdentity.aggregateDigest(
            java.util.Map.of("revenue", new java.math.BigDecimal("99")));
    execute(
        "UPDATE streamform.projection SET aggregate_values = '{\"revenue\": \"99\"}',"
            + " aggregate_digest = '"
            + digest99
            + "' WHERE window_key->>'merchant_id' = '8'");
    LedgerVerification both = ledger.verify(Revisions.MODEL);
    assertThat(
        both.summary(), equalTo("2 projections, 3 revisions, 1 gap, 1 mismatch, 0 conflicts"));
    assertThat(
        both.defects().get(1),
        equalTo(
            "mismatch: merchant_id=8 [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z)"
                + " generation 1 (projection "
                + Ledger.shortId(revision(8, 10, 1, "12").projectionId())
                + "): the projection's values {\"revenue\":\"99\"} are not ledger revision 1's"
                + " {\"revenue\":\"12\"}"));
    assertThat(both.clean(), equalTo(false));
  }

  @Test
  void retryableFailuresAreTheOnesARetryCures() {
    assertThat(LedgerWriter.retryable(new SQLException("refused", "08001")), equalTo(true));
    assertThat(
        LedgerWriter.retryable(new SQLException("terminating connection", "57P01")), equalTo(true));
    assertThat(LedgerWriter.retryable(new SQLException("deadlock", "40P01")), equalTo(true));
    assertThat(
        LedgerWriter.retryable(new SQLException("serialization failure", "40001")), equalTo(true));
    // the lock table exhausted (issue 28): other transactions free it, so a retry can cure it
    assertThat(
        LedgerWriter.retryable(new SQLException("out of shared memory", "53200")), equalTo(true));
    // HikariCP's stand-in for a connection it evicted after the server went away (a restart)
    assertThat(
        LedgerWriter.retryable(new RuntimeException(new SQLException("Connection is closed"))),
        equalTo(true));
    assertThat(
        LedgerWriter.retryable(new SQLException("check constraint", "23514")), equalTo(false));
    assertThat(
        LedgerWriter.retryable(
            new RuntimeException(new java.sql.SQLTransientConnectionException("pool"))),
        equalTo(true));
  }

  /** The canonical view's rows: generation, revision, values. */
  private List<String> canonical() throws SQLException {
    return rows(
        "SELECT generation, revision, aggregate_values FROM streamform.canonical_projection");
  }

  private List<String> rows(String sql) throws SQLException {
    return Tables.rows(pool, sql);
  }

  private void execute(String sql) throws SQLException {
    Tables.execute(pool, sql);
  }
}
