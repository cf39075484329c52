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
}
