package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.transforms.windows.WindowedAggregate;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: windows are passed with their own type — {@code of(FixedWindows)}, {@code
 * of(SlidingWindows)} — so the compiler refuses windows the aggregate cannot compute, rather than a
 * runtime {@code instanceof}; {@code of(WindowFn)} stays, deprecated, for callers that hold a
 * {@code WindowFn}, and gives the same transform.
 */
class WindowedAggregateApiTest {
  @Test
  void fixedAndSlidingWindowsHaveTheirOwnOverloads() throws Exception {
    Method fixed = WindowedAggregate.class.getMethod("of", FixedWindows.class);
    Method sliding = WindowedAggregate.class.getMethod("of", SlidingWindows.class);
    Method any = WindowedAggregate.class.getMethod("of", WindowFn.class);
    assertEquals(WindowedAggregate.class, fixed.getReturnType());
    assertEquals(WindowedAggregate.class, sliding.getReturnType());
    assertTrue(any.isAnnotationPresent(Deprecated.class), "of(WindowFn) is deprecated");
  }

  @Test
  @SuppressWarnings("deprecation")
  void theDeprecatedOverloadGivesTheSameTransform() {
    FixedWindows hourly = FixedWindows.of(Duration.standardHours(1));
    SlidingWindows hopping =
        SlidingWindows.of(Duration.standardHours(1)).every(Duration.standardMinutes(30));
    assertEquals(
        shown(WindowedAggregate.of(hourly)), shown(WindowedAggregate.of((WindowFn<?, ?>) hourly)));
    assertEquals(
        shown(WindowedAggregate.of(hopping)),
        shown(WindowedAggregate.of((WindowFn<?, ?>) hopping)));
  }

  /**
   * A period longer than the size leaves gaps between windows: an event there would be in no
   * window, counted late with no row. Refused as {@code check} refuses it in a declaration.
   */
  @Test
  void slidingWindowsWithGapsAreRefusedNamingSizePeriodAndTheFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                WindowedAggregate.of(
                    SlidingWindows.of(Duration.standardMinutes(1))
                        .every(Duration.standardMinutes(5))));
    assertEquals(
        "WindowedAggregate.of(SlidingWindows): every (5m) is longer than the window's size (1m):"
            + " events between windows would belong to none; give a period no longer than the"
            + " size, e.g. SlidingWindows.of(size).every(period) with period <= size, or"
            + " FixedWindows.of(size)",
        e.getMessage());
    // a period equal to the size is a tumbling window, accepted
    WindowedAggregate.of(
        SlidingWindows.of(Duration.standardMinutes(5)).every(Duration.standardMinutes(5)));
  }

  private static Map<String, String> shown(WindowedAggregate w) {
    Map<String, String> items = new TreeMap<>();
    DisplayData.from(w.forModel("m").by("k"))
        .items()
        .forEach(i -> items.put(i.getKey(), String.valueOf(i.getValue())));
    return items;
  }
}
