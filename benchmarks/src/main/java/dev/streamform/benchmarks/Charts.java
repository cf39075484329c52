package dev.streamform.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The benchmark's chart (JFreeChart, one PNG): throughput per pipeline and runner on the left, live
 * state over events read on the right — the {@code keys_live}/{@code windows_live} counters the
 * pipelines themselves report, sampled while they run ({@link LiveMetrics}).
 */
final class Charts {
  private Charts() {}

  /** One bar: a case's median events/s. */
  record Bar(String label, double eventsPerSecond) {}

  /** One line: {records read, live keys or windows} samples of a case. */
  record Line(String label, List<long[]> samples) {}

  static void write(Path png, List<Bar> bars, List<Line> lines, String subtitle)
      throws IOException {
    DefaultCategoryDataset rates = new DefaultCategoryDataset();
    for (Bar b : bars) {
      rates.addValue(b.eventsPerSecond(), "events/s (median)", b.label());
    }
    JFreeChart throughput =
        ChartFactory.createBarChart(
            "Throughput per pipeline and runner",
            null,
            "events/s",
            rates,
            PlotOrientation.VERTICAL,
            false,
            false,
            false);
    CategoryPlot cp = throughput.getCategoryPlot();
    cp.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    cp.getDomainAxis().setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    ((BarRenderer) cp.getRenderer()).setSeriesPaint(0, new Color(0x3b6ea5));
    ((BarRenderer) cp.getRenderer()).setShadowVisible(false);
    cp.setBackgroundPaint(Color.WHITE);
    cp.setRangeGridlinePaint(Color.LIGHT_GRAY);
    throughput.addSubtitle(new TextTitle(subtitle, new Font(Font.SANS_SERIF, Font.PLAIN, 10)));

    XYSeriesCollection state = new XYSeriesCollection();
    for (Line l : lines) {
      XYSeries s = new XYSeries(l.label(), false, true);
      for (long[] sample : l.samples()) {
        s.add(sample[0], sample[1]);
      }
      state.addSeries(s);
    }
    JFreeChart live =
        ChartFactory.createXYLineChart(
            "Live state over events read (measured in the pipeline)",
            "events read",
            "live keys / windows",
            state,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    XYPlot xp = live.getXYPlot();
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
    for (int i = 0; i < state.getSeriesCount(); i++) {
      r.setSeriesStroke(i, new BasicStroke(2f));
    }
    xp.setRenderer(r);
    xp.setBackgroundPaint(Color.WHITE);
    xp.setRangeGridlinePaint(Color.LIGHT_GRAY);
    xp.setDomainGridlinePaint(Color.LIGHT_GRAY);
    ((NumberAxis) xp.getRangeAxis()).setAutoRangeIncludesZero(true);

    int w = 760;
    int h = 560;
    BufferedImage image = new BufferedImage(2 * w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, 2 * w, h);
    throughput.draw(g, new Rectangle2D.Double(0, 0, w, h));
    live.draw(g, new Rectangle2D.Double(w, 0, w, h));
    g.dispose();
    Files.createDirectories(png.toAbsolutePath().getParent());
    ImageIO.write(image, "png", png.toFile());
  }
}
