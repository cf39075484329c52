package dev.streamform.planner.sinks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonText} writes what the tree of the same fields prints: each value as {@link
 * JsonRecords#node} makes it, then {@code ObjectNode.toString()} (ADR 0170).
 */
class JsonTextTest {
  @Test
  void everyKindOfValueIsWrittenAsItsNodePrints() {
    Random r = new Random(20261206);
    List<String> differ = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      Object value = value(r);
      String written = new JsonText().field("v", value).close();
      String tree =
          JsonNodeFactory.instance.objectNode().set("v", JsonRecords.node(value)).toString();
      if (!written.equals(tree) && differ.size() < 10) {
        differ.add(
            value + " (" + value.getClass().getSimpleName() + "): " + written + " not " + tree);
      }
    }
    assertThat(differ, empty());
  }

  @Test
  void fieldsAndNestedObjectsInTheirOrder() {
    ObjectNode tree = JsonNodeFactory.instance.objectNode();
    tree.put("status", "on_time");
    tree.put("revision", 2);
    tree.putNull("predecessor");
    tree.set("at", JsonRecords.node(Instant.parse("2026-08-30T10:00:00.120Z")));
    tree.set("amount", JsonRecords.node(new BigDecimal("1E+3")));
    ObjectNode offsets = tree.putObject("offsets");
    offsets.putObject("0").put("min", 3L).put("max", 9L).put("count", 4L);
    offsets.putObject("1").put("min", 0L).put("max", 0L).put("count", 1L);
    tree.put("generation", 1);

    String written =
        new JsonText()
            .string("status", "on_time")
            .number("revision", 2)
            .field("predecessor", null)
            .field("at", org.joda.time.Instant.parse("2026-08-30T10:00:00.120Z"))
            .field("amount", new BigDecimal("1E+3"))
            .object("offsets")
            .object("0")
            .number("min", 3)
            .number("max", 9)
            .number("count", 4)
            .end()
            .object("1")
            .number("min", 0)
            .number("max", 0)
            .number("count", 1)
            .end()
            .end()
            .number("generation", 1)
            .close();

    assertThat(written, is(tree.toString()));
  }

  private static Object value(Random r) {
    switch (r.nextInt(12)) {
      case 0:
        return Instant.ofEpochMilli(r.nextLong() % 253_402_300_799_999L);
      case 1:
        return new org.joda.time.Instant(r.nextLong() % 253_402_300_799_999L);
      case 2:
        return new BigDecimal(new BigInteger(r.nextInt(120) + 1, r), r.nextInt(40) - 20);
      case 3:
        return BigDecimal.valueOf(r.nextInt(2_000_000) - 1_000_000, r.nextInt(5));
      case 4:
        return r.nextLong();
      case 5:
        return r.nextInt();
      case 6:
        double[] odd = {
          Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 1e300, 5e-324
        };
        return r.nextBoolean() ? odd[r.nextInt(odd.length)] : r.nextGaussian() * 1e6;
      case 7:
        return r.nextBoolean();
      case 8:
        return text(r);
      case 9:
        return List.of(r.nextInt(10), text(r)); // any other object: its toString() as text
      case 10:
        return (short) r.nextInt(); // neither Long nor Integer: its text, as the node makes it
      default:
        return text(r) + "\"\\/\u0000\u001f\u2028\ud83d\ude00";
    }
  }

  private static String text(Random r) {
    StringBuilder s = new StringBuilder();
    for (int n = r.nextInt(12); n > 0; n--) {
      s.append((char) (r.nextBoolean() ? 32 + r.nextInt(95) : r.nextInt(0x3000)));
    }
    return s.toString();
  }
}
