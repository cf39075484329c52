package dev.streamform.sink.effects;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A pass line counts in the singular for exactly one, verbs included. */
class DispatcherReportTest {
  private static Dispatcher.Report report(int n) {
    return new Dispatcher.Report(
        n,
        0,
        0,
        0,
        0,
        n,
        0,
        0,
        0,
        n,
        n,
        n,
        n,
        0,
        0,
        n,
        null,
        Optional.empty(),
        0,
        List.of(),
        null,
        null,
        null);
  }

  @Test
  void oneOfEachIsSingular() {
    String one = report(1).describe();
    assertThat(one, containsString("1 expired dispatch,"));
    assertThat(
        one,
        containsString(
            "1 outcome lost to another dispatcher or a person's settlement (not written)"));
    assertThat(
        one, containsString("1 outcome write failed (database unavailable) and was tried again"));
    assertThat(one, containsString("1 outcome not yet written, kept to be written"));
    assertThat(one, containsString("1 waiting for its canonical revision;"));
    assertThat(one, containsString("1 backing off until its next attempt"));
    assertThat(
        one,
        containsString(
            "1 found never applied and cancelled, nothing sent (its rule is false on the"
                + " canonical values now)"));
    assertThat(one, not(containsString("1 outcomes")));
  }

  @Test
  void twoOfEachArePlural() {
    String two = report(2).describe();
    assertThat(two, containsString("2 expired dispatches,"));
    assertThat(
        two,
        containsString(
            "2 outcomes lost to another dispatcher or a person's settlement (not written)"));
    assertThat(
        two, containsString("2 outcome writes failed (database unavailable) and were tried again"));
    assertThat(two, containsString("2 outcomes not yet written, kept to be written"));
    assertThat(two, containsString("2 waiting for their canonical revision;"));
    assertThat(two, containsString("2 backing off until their next attempt"));
    assertThat(
        two,
        containsString(
            "2 found never applied and cancelled, nothing sent (their rule is false on the"
                + " canonical values now)"));
  }

  /**
   * A pause that commits while a pass is under way stops the claims after it; those made before it
   * are counted, and the line says which were which (an audit read "nothing new claimed; 3 claimed"
   * as a pause that was ignored).
   */
  @Test
  void aPauseDuringThePassSaysTheClaimsCameBeforeIt() {
    Optional<EffectsPause.State> paused =
        Optional.of(new EffectsPause.State(java.time.Instant.EPOCH, "alice", "incident 12"));
    String during = withPause(3, paused).describe();
    assertThat(
        during,
        containsString(
            "effects paused during this pass (since 1970-01-01T00:00:00Z by alice: incident 12):"
                + " nothing claimed after it; 3 claimed before it, "));
    String before = withPause(0, paused).describe();
    assertThat(
        before,
        containsString(
            "effects paused (since 1970-01-01T00:00:00Z by alice: incident 12): nothing new"
                + " claimed; 0 claimed, "));
  }

  private static Dispatcher.Report withPause(int claimed, Optional<EffectsPause.State> paused) {
    return new Dispatcher.Report(
        0, 0, 0, 0, claimed, 0, claimed, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, paused, 0, List.of(),
        null, null, null);
  }
}
