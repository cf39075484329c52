package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A type named in a message takes "an" before a vowel: "an int64 column", "a string value". */
class TypeArticlesTest {
  @TempDir Path dir;

  @Test
  void aFixtureValueOfTheWrongTypeAsksForAnInt64() throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    ProjectFolder.at(dir)
        .write(
            "fixtures/bad.yml",
            "model: customer_metrics\ngiven:\n  - event: { customer_id: \"<b>x</b>\", amount: 1,"
                + " ordered_at: \"2026-08-30T10:00:00Z\" }\n");
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/bad.yml")));
    String problem = e.problems().get(0).toString();
    assertThat(problem, containsString("give customer_id an int64 value"));
    assertThat(problem, not(containsString(" a int64")));
  }

  @Test
  void anEventTimeOnAnInt64ColumnSaysAnInt64() {
    assertThat(
        ProjectFolder.seed(dir)
            .sources(
                ProjectFolder.SOURCES.replace("event_time: ordered_at", "event_time: customer_id"))
            .problems(),
        hasItem(containsString("'customer_id' is an int64 column, not a timestamp")));
  }
}
