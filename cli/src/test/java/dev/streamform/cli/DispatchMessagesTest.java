package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectsPause;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the dispatcher and the pause print, counted in the singular for exactly one. */
class DispatchMessagesTest {
  @Test
  void onePausedEffectInFlightFinishesAndIsRecorded() {
    assertThat(
        EffectsPauseCommand.describe(new EffectsPause.Change(true, Optional.empty(), 1)),
        equalTo(
            "effects paused: dispatchers claim nothing from their next claim on; 1 effect in"
                + " flight (DISPATCHING) finishes and is recorded"));
    assertThat(
        EffectsPauseCommand.describe(new EffectsPause.Change(true, Optional.empty(), 2)),
        equalTo(
            "effects paused: dispatchers claim nothing from their next claim on; 2 effects in"
                + " flight (DISPATCHING) finish and are recorded"));
  }

  @Test
  void aPassTheDatabaseStoppedSaysWhatItClaimedBefore() {
    // 3 claimed, 2 written DONE, the third's outcome kept: the next pass writes it and claims on
    Dispatcher.Report before =
        new Dispatcher.Report(
            0,
            0,
            0,
            0,
            3,
            0,
            2,
            0,
            0,
            0,
            0,
            1,
            3,
            0,
            0,
            0,
            null,
            Optional.empty(),
            0,
            List.of(),
            null,
            null,
            null);
    assertThat(
        DispatchCommand.databaseFailed(
            1, before, "the database failed: Connection refused", 1, Duration.ofSeconds(1)),
        equalTo(
            "streamform dispatch: pass 1: 3 claimed, 2 done, 0 unknown, 0 not sent (prepared"
                + " again), then the database failed: Connection refused; 1 outcome kept to be"
                + " written; next pass in 1000 ms"));
    // nothing done before it (the kept outcomes were refused again), --once: no next pass
    assertThat(
        DispatchCommand.databaseFailed(2, null, "the database failed: Connection refused", 2, null),
        equalTo(
            "streamform dispatch: pass 2: the database failed: Connection refused; 2 outcomes"
                + " kept to be written"));
  }

  @Test
  void aWriteTheDatabaseRefusesForItsDataIsNamedNotCalledAFailureOfTheDatabase() {
    // a receipt query's answer the database cannot take (ADR 0184): its cause, not an outage
    java.sql.SQLException refused =
        new java.sql.SQLException(
            "ERROR: invalid byte sequence for encoding \"UTF8\": 0x00\n  Where: unnamed portal",
            "22021");
    assertThat(
        DispatchCommand.databaseFailed(
            3, null, DispatchCommand.failure(refused, ""), 0, Duration.ofSeconds(2)),
        equalTo(
            "streamform dispatch: pass 3: the database refused a write (not an outage: SQLState"
                + " 22021, ERROR: invalid byte sequence for encoding \"UTF8\": 0x00); next pass in"
                + " 2000 ms"));
    assertThat(
        DispatchCommand.failure(new java.sql.SQLException("Connection refused", "08001"), " again"),
        equalTo("the database failed again: Connection refused"));
  }
}
