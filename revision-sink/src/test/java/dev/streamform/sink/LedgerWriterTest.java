package dev.streamform.sink;

import static dev.streamform.sink.Revisions.finalOf;
import static dev.streamform.sink.Revisions.preview;
import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.windows.WindowRevision;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
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

  /**
   * A revision with the values the ledger holds but from other events (a resumed partition's event
   * in a window already final and freed) is no replay: its events would vanish from the ledger.
   */
  @Test
  void theSameValuesFromOtherEventsAreAConflictNotAReplay() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "30")));
    WindowRevision others =
        revision(7, 10, 1, "30").toBuilder()
            .setOffsets(List.of(WindowRevision.PartitionOffsets.of(2, 1, 1, 1)))
            .build();
    LedgerWriter.Outcome again = writer.write(List.of(others));
    assertThat(List.of(again.replayed(), again.conflicts().size()), equalTo(List.of(0, 1)));
    assertThat(
        again.conflicts().get(0).reason(),
        equalTo(
            "revision 1 is recorded with the same values from other events (offsets"
                + " {\"0\":{\"count\":2,\"max\":1,\"min\":0}}; offered"
                + " {\"2\":{\"count\":1,\"max\":1,\"min\":1}})"));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("1 projection, 1 revision, 0 gaps, 0 mismatches, 1 conflict"));
  }

  /**
   * ADR 0197's refusal of the same values from other events does not depend on batching: against a
   * stored row (A, D), against an earlier record of the same batch (B) and against a held revision
   * (C), each is one conflict, and no replay.
   */
  @Test
  void theSameValuesFromOtherEventsAreRefusedHoweverTheyAreBatched() throws Exception {
    WindowRevision one = revision(7, 10, 1, "30");
    WindowRevision two = revision(7, 10, 2, "26");
    List<List<List<WindowRevision>>> cases =
        List.of(
            // A: two batches
            List.of(List.of(at(one, 0, 0, 1, 2)), List.of(at(one, 0, 5, 6, 2))),
            // B: one batch
            List.of(List.of(at(one, 0, 0, 1, 2), at(one, 0, 5, 6, 2))),
            // C: revision 2 held, then the other revision 2, then revision 1
            List.of(
                List.of(at(two, 0, 0, 2, 3)),
                List.of(at(two, 0, 0, 9, 3)),
                List.of(at(one, 0, 0, 1, 2))),
            // D: revision 2 applied, then the other revision 2
            List.of(
                List.of(at(one, 0, 0, 1, 2)),
                List.of(at(two, 0, 0, 2, 3)),
                List.of(at(two, 0, 0, 9, 3))));
    List<String> seen = new java.util.ArrayList<>();
    for (List<List<WindowRevision>> batches : cases) {
      try (HikariDataSource fresh =
          JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("case", 2, 1_000)) {
        LedgerWriter w = new LedgerWriter(fresh, Duration.ofSeconds(60));
        int replayed = 0;
        List<String> reasons = new java.util.ArrayList<>();
        for (List<WindowRevision> batch : batches) {
          LedgerWriter.Outcome o = w.write(batch);
          replayed += o.replayed();
          o.conflicts().forEach(c -> reasons.add(c.reason()));
        }
        String summary = Ledger.at(fresh).verify(Revisions.MODEL).summary();
        seen.add(
            replayed
                + " replayed, "
                + reasons.size()
                + " refused"
                + (reasons.size() == 1
                        && reasons.get(0).contains(" with the same values from other events")
                    ? " as the same values from other events"
                    : " " + reasons)
                + "; verify: "
                + summary.substring(summary.lastIndexOf(", ") + 2));
      }
    }
    String each = "0 replayed, 1 refused as the same values from other events; verify: 1 conflict";
    assertThat(seen, equalTo(List.of(each, each, each, each)));
  }

  /** {@code r} with the offsets {@code partition: [min, max], count} given, in order. */
  private static WindowRevision at(WindowRevision r, long... partitionMinMaxCount) {
    List<WindowRevision.PartitionOffsets> offsets = new java.util.ArrayList<>();
    for (int i = 0; i < partitionMinMaxCount.length; i += 4) {
      offsets.add(
          WindowRevision.PartitionOffsets.of(
              (int) partitionMinMaxCount[i],
              partitionMinMaxCount[i + 1],
              partitionMinMaxCount[i + 2],
              partitionMinMaxCount[i + 3]));
    }
    return r.toBuilder().setOffsets(offsets).build();
  }

  /**
   * A run on other input (a WHERE added under the same generation) whose revision 1 was refused
   * does not write its revision 2, accumulated on its own revision 1, over the other run's: its
   * events leave out one of the revision it would follow.
   */
  @Test
  void aRevisionWithoutTheEventsOfTheOneItWouldFollowIsRefused() throws Exception {
    // run one: offsets 0 and 1 of partition 0 make 30
    writer.write(List.of(at(revision(7, 10, 1, "30"), 0, 0, 1, 2)));
    // run two leaves out offset 0: 20, then a correction at offset 3 makes 25
    assertThat(
        writer.write(List.of(at(revision(7, 10, 1, "20"), 0, 1, 1, 1))).conflicts().size(),
        equalTo(1));
    LedgerWriter.Outcome next = writer.write(List.of(at(revision(7, 10, 2, "25"), 0, 1, 3, 2)));
    assertThat(List.of(next.applied(), next.conflicts().size()), equalTo(List.of(0, 1)));
    assertThat(
        next.conflicts().get(0).reason(),
        equalTo(
            "revision 2 does not hold the events of revision 1 it would follow (offsets"
                + " {\"0\":{\"count\":2,\"max\":1,\"min\":0}}; offered"
                + " {\"0\":{\"count\":2,\"max\":3,\"min\":1}}): it accumulates on another"
                + " run's revision 1, whose input differs"));
    assertThat(
        rows("SELECT revision, aggregate_values FROM streamform.projection"),
        equalTo(List.of("1 {\"revenue\": \"30\"}")));
    // run one's correction at offset 3 holds offsets 0 and 1: it follows
    assertThat(
        writer.write(List.of(at(revision(7, 10, 2, "35"), 0, 0, 3, 3))).applied(), equalTo(1));
  }

  /**
   * A key spread over partitions may see its corrections in another order after a restore (§6): the
   * reordered revision 2 is a conflict, but revision 3, which holds both corrections, follows the
   * ledger's revision 2 and is written.
   */
  @Test
  void aCorrectionAfterAReorderedOneStillFollowsTheLedgersChain() throws Exception {
    writer.write(
        List.of(
            at(revision(7, 10, 1, "30"), 0, 0, 1, 2), at(revision(7, 10, 2, "35"), 0, 0, 3, 3)));
    LedgerWriter.Outcome restored =
        writer.write(
            List.of(
                at(revision(7, 10, 2, "31"), 0, 0, 1, 2, 1, 5, 5, 1),
                at(revision(7, 10, 3, "36"), 0, 0, 3, 3, 1, 5, 5, 1)));
    assertThat(List.of(restored.applied(), restored.conflicts().size()), equalTo(List.of(1, 1)));
    assertThat(
        rows("SELECT revision, aggregate_values FROM streamform.projection"),
        equalTo(List.of("3 {\"revenue\": \"36\"}")));
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
   * Two runs of one generation at the same time (audit, item 1): each counts the conflicts it
   * offered itself, not those the other offered while it ran; a conflict both offered counts for
   * both, and stays one row.
   */
  @Test
  void aRunCountsOnlyTheConflictsItOfferedNotThoseOfAnotherRunBesideIt() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "30"), revision(8, 10, 1, "3")));
    LedgerWriter clean = new LedgerWriter(pool, Duration.ofSeconds(60)).forRun("clean");
    LedgerWriter conflicting = new LedgerWriter(pool, Duration.ofSeconds(60)).forRun("conflicting");
    conflicting.write(List.of(revision(7, 10, 1, "31"), revision(8, 10, 1, "4")));
    clean.write(List.of(revision(7, 10, 1, "30"), revision(8, 11, 1, "5")));

    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 1, "conflicting"), equalTo(2L));
    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 1, "clean"), equalTo(0L));

    // a third run beside them offers one of the same conflicts: counted for it, still one row
    LedgerWriter third = new LedgerWriter(pool, Duration.ofSeconds(60)).forRun("third");
    third.write(List.of(revision(7, 10, 1, "31")));
    third.write(List.of(revision(7, 10, 1, "31"))); // offered twice, counted once
    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 1, "third"), equalTo(1L));
    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 1, "conflicting"), equalTo(2L));
    assertThat(rows("SELECT count(*) FROM streamform.revision_conflict"), equalTo(List.of("2")));
  }

  /**
   * A run counts the conflicts it refused (docs/decisions/0040, 0114): a conflict an earlier run
   * recorded and this one offers again is refused again and counted for this run too, while the
   * table keeps one row for it.
   */
  @Test
  void aConflictOfferedAgainByALaterRunIsCountedForThatRunAndRecordedOnce() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "30"), revision(8, 10, 1, "3")));
    WindowRevision other = revision(7, 10, 1, "31");

    new LedgerWriter(pool, Duration.ofSeconds(60)).forRun("first").write(List.of(other));
    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 1, "first"), equalTo(1L));

    // a later run (another writer) offers the same record again
    LedgerWriter again = new LedgerWriter(pool, Duration.ofSeconds(60)).forRun("second");
    assertThat(again.write(List.of(other, revision(8, 10, 1, "3"))).conflicts().size(), equalTo(1));
    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 1, "second"), equalTo(1L));
    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 2, "second"), equalTo(0L));

    // a run that offers nothing conflicting counts none
    new LedgerWriter(pool, Duration.ofSeconds(60))
        .forRun("third")
        .write(List.of(revision(8, 10, 1, "3")));
    assertThat(ledger.conflictsRefusedBy(Revisions.MODEL, 1, "third"), equalTo(0L));

    assertThat(rows("SELECT count(*) FROM streamform.revision_conflict"), equalTo(List.of("1")));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("2 projections, 2 revisions, 0 gaps, 0 mismatches, 1 conflict"));
  }

  /**
   * A projection row deleted behind the ledger's foreign key (a superuser with {@code
   * session_replication_role = replica}, the damage docs/guides/postgresql-revisions.md names): its
   * ledger rows stay, and verify says so, exit 1 (found by a read-only audit: it printed 0 gaps and
   * 0 mismatches, and the canonical view had lost the window).
   */
  @Test
  void aProjectionDeletedBehindTheForeignKeyIsAMismatch() throws Exception {
    writer.write(
        List.of(revision(7, 10, 1, "30"), revision(7, 10, 2, "26"), revision(8, 10, 1, "12")));
    try (java.sql.Connection c = pool.getConnection();
        java.sql.Statement s = c.createStatement()) {
      s.execute("SET session_replication_role = replica");
      s.execute("DELETE FROM streamform.projection WHERE window_key->>'merchant_id' = '7'");
      s.execute("RESET session_replication_role");
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
    LedgerVerification v = ledger.verify(Revisions.MODEL);
    assertThat(v.summary(), equalTo("1 projection, 3 revisions, 0 gaps, 1 mismatch, 0 conflicts"));
    assertThat(v.clean(), equalTo(false));
    assertThat(
        v.defects(),
        equalTo(
            List.of(
                "mismatch: the ledger holds revisions 1..2 of projection "
                    + revision(7, 10, 1, "30").projectionId().substring(0, 12)
                    + " but no projection row of it: the row was deleted behind the ledger's"
                    + " foreign key (its model, key and window went with it), and the"
                    + " canonical view no longer shows that window")));
    // the next run offers the window again: the damage is said, not PostgreSQL's duplicate key
    java.sql.SQLException again =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.sql.SQLException.class, () -> writer.write(List.of(revision(7, 10, 1, "30"))));
    assertThat(
        again.getMessage(),
        org.hamcrest.Matchers.containsString(
            "is damaged: it holds a revision of a window whose projection row is gone"));
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
