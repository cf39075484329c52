package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A fixture file as an editor leaves it: keys without values. */
class FixtureDiscoveryTest {
  @TempDir Path dir;

  private String refusal(String text) throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    ProjectFolder.at(dir).write("fixtures/f.yml", text);
    return assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/f.yml")))
        .problems()
        .get(0)
        .toString();
  }

  @Test
  void givenWithNoValueIsRefusedLikeAnyRequiredKey() throws Exception {
    String empty = refusal("model: customer_metrics\ngiven:\nexpect: []\n");
    assertThat(
        empty.startsWith("fixtures/f.yml:2: key 'given': has no value — list the delivered items"),
        is(true));
    String tilde = refusal("model: customer_metrics\n\ngiven: ~\n");
    assertThat(tilde.startsWith("fixtures/f.yml:3: key 'given': has no value"), is(true));
  }
}
