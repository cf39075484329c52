package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class JobFailureTest {

  @Test
  void namesEveryCauseDownToTheInnermost() {
    Throwable root = new OutOfMemoryError("Metaspace");
    Exception submission =
        new IllegalStateException(
            "Failed to submit job 1234.\nmore lines the operator need not read", root);
    RuntimeException wrapped =
        new RuntimeException(
            "Pipeline execution failed",
            new ExecutionException(new CompletionException(submission)));

    assertThat(
        JobFailure.causes(wrapped),
        equalTo(
            "RuntimeException: Pipeline execution failed <- IllegalStateException: Failed to submit"
                + " job 1234. <- OutOfMemoryError: Metaspace"));
  }

  @Test
  void aCauseWithoutMessageIsNamedByItsType() {
    assertThat(
        JobFailure.causes(
            new RuntimeException("Pipeline execution failed", new NullPointerException())),
        equalTo("RuntimeException: Pipeline execution failed <- NullPointerException"));
  }

  @Test
  void aLongChainKeepsItsEndsAndACycleEnds() {
    Exception e = new Exception("innermost");
    for (int i = 1; i <= 9; i++) {
      e = new Exception("level " + i, e);
    }
    assertThat(
        JobFailure.causes(e),
        equalTo(
            "Exception: level 9 <- Exception: level 8 <- … <- Exception: level 3 <- Exception:"
                + " level 2 <- Exception: level 1 <- Exception: innermost"));
    Exception a = new Exception("a");
    Exception b = new Exception("b", a);
    a.initCause(b);
    assertThat(JobFailure.causes(b), equalTo("Exception: b <- Exception: a"));
  }
}
