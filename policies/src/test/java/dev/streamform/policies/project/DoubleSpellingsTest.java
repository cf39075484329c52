package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fixture's double values may be written as YAML writes them ({@code .nan}, {@code .inf}, {@code
 * -.inf}) as well as NaN and Infinity: the same values, read the same way; a value that is no
 * double at all says how to write one.
 */
class DoubleSpellingsTest {
  @TempDir Path dir;

  private Project doubleAmounts() throws Exception {
    return ProjectFolder.seed(dir)
        .sources(ProjectFolder.SOURCES.replace("amount: decimal(12,2)", "amount: double"))
        .load();
  }

  private Fixture fixture(Project project, String amounts) throws Exception {
    StringBuilder text = new StringBuilder("model: customer_metrics\ngiven:\n");
    for (String a : amounts.split(" ")) {
      text.append("  - event: { customer_id: 42, amount: ")
          .append(a)
          .append(", ordered_at: \"2026-08-30T10:00:00Z\" }\n");
    }
    ProjectFolder.at(dir).write("fixtures/specials.yml", text.toString());
    return Fixture.load(project, dir.resolve("fixtures/specials.yml"));
  }

  private static List<Object> amounts(Fixture f) {
    return f.given().stream().map(g -> g.event().get().get("amount")).toList();
  }

  @Test
  void yamlsSpellingsOfNanAreNan() throws Exception {
    Fixture f = fixture(doubleAmounts(), ".nan .NaN .NAN NaN");
    assertThat(amounts(f), is(List.of(Double.NaN, Double.NaN, Double.NaN, Double.NaN)));
  }

  /**
   * An infinity is refused in a fixture's event as in a record (ADR 0081, amended): read, it would
   * stick its group's sum at infinity, every later event quarantined as an overflow.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {".inf", "+.inf", "-.inf", "-.Inf", ".INF", "Infinity", "-Infinity"})
  void anInfinityIsRefusedAtItsLine(String infinity) throws Exception {
    Project project = doubleAmounts();
    InvalidProjectException e =
        assertThrows(InvalidProjectException.class, () -> fixture(project, infinity));
    assertThat(
        e.problems().get(0).toString(),
        is(
            "fixtures/specials.yml:3: event 1, key 'amount': '"
                + infinity
                + "' is infinite; a double column takes finite numbers (and NaN)"
                + " — give amount a finite number, e.g. 1.5"));
  }

  @Test
  void aValueThatIsNoDoubleSaysHowToWriteOne() throws Exception {
    Project project = doubleAmounts();
    InvalidProjectException e =
        assertThrows(InvalidProjectException.class, () -> fixture(project, "nan"));
    assertThat(
        e.problems().get(0).toString(),
        is(
            "fixtures/specials.yml:3: event 1, key 'amount': 'nan' is not a double: write a"
                + " number (1.5, -2e3) or NaN (or .nan)"
                + " — give amount a double value"));
  }
}
