package dev.streamform.core.text;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CountsTest {

  @ParameterizedTest
  @CsvSource({
    "1, event, 1 event",
    "0, event, 0 events",
    "2, event, 2 events",
    // several words: only the last one takes the plural
    "1, rule error, 1 rule error",
    "3, rule error, 3 rule errors",
    "2, expect: row, 2 expect: rows",
    "2, duplicates: row, 2 duplicates: rows",
    // after a hissing ending the plural is -es
    "1, dispatch, 1 dispatch",
    "2, dispatch, 2 dispatches",
    "0, mismatch, 0 mismatches",
    "2, flash, 2 flashes",
    "2, box, 2 boxes",
    "2, class, 2 classes",
    "2, buzz, 2 buzzes",
    // an h that is not ch or sh takes a plain -s
    "2, month, 2 months",
    "2, depth, 2 depths"
  })
  void regularPluralsAreSingularOnlyForOne(long n, String noun, String expected) {
    assertThat(Counts.of(n, noun), is(expected));
  }

  @Test
  void aLongCountIsPrintedWhole() {
    assertThat(Counts.of(3_000_000_000L, "event"), is("3000000000 events"));
  }

  @ParameterizedTest
  @CsvSource({
    "1, event, 1 event",
    "999, event, 999 events",
    "4980, event, '4,980 events'",
    "3000000000, dispatch, '3,000,000,000 dispatches'"
  })
  void groupedCountsAreGroupedInThousandsAsRunPrintsThem(long n, String noun, String expected) {
    assertThat(Counts.grouped(n, noun), is(expected));
  }

  @ParameterizedTest
  @CsvSource({
    "1, child, children, 1 child",
    "0, child, children, 0 children",
    "2, child, children, 2 children",
    "1, policy, policies, 1 policy",
    "5, policy, policies, 5 policies"
  })
  void anIrregularPluralIsUsedAsGiven(long n, String one, String many, String expected) {
    assertThat(Counts.of(n, one, many), is(expected));
  }
}
