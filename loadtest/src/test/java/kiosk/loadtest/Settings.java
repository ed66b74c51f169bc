package kiosk.loadtest;

import java.util.ArrayList;
import java.util.List;

/** System properties with defaults; a bad value stops the run with a message that names it. */
final class Settings {
  private Settings() {}

  static String string(String name, String fallback) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  static double positive(String name, double fallback) {
    String raw = System.getProperty(name);
    if (raw == null || raw.isBlank()) return fallback;
    try {
      double value = Double.parseDouble(raw.trim());
      if (value > 0 && Double.isFinite(value)) return value;
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException("-D" + name + " must be a positive number, got \"" + raw + "\"");
  }

  static double atLeastZero(String name, double fallback) {
    String raw = System.getProperty(name);
    if (raw == null || raw.isBlank()) return fallback;
    if ("0".equals(raw.trim())) return 0;
    return positive(name, fallback);
  }

  static int wholePositive(String name, int fallback) {
    double value = positive(name, fallback);
    if (value != Math.rint(value)) {
      throw new IllegalArgumentException("-D" + name + " must be a whole number, got \"" + System.getProperty(name) + "\"");
    }
    return (int) value;
  }

  static List<Double> rates(String name, String fallback) {
    String raw = string(name, fallback);
    List<Double> rates = new ArrayList<>();
    for (String part : raw.split(",")) {
      try {
        double rate = Double.parseDouble(part.trim());
        if (rate > 0 && Double.isFinite(rate)) {
          rates.add(rate);
          continue;
        }
      } catch (NumberFormatException ignored) {
        // reported below
      }
      throw new IllegalArgumentException("-D" + name + " must be positive numbers separated by commas, got \"" + raw + "\"");
    }
    return rates;
  }

  /** The site's origin without a trailing slash, so paths from the feed append cleanly. */
  static String baseUrl() {
    String url = string("baseUrl", "http://localhost:3000");
    if (!url.matches("https?://[^/\\s]+(/.*)?")) {
      throw new IllegalArgumentException("-DbaseUrl must be an http(s) URL, got \"" + url + "\"");
    }
    return url.replaceAll("/+$", "");
  }

  /** "120 req/s", "12.5 req/s": the name of a rate step in the report. */
  static String rateLabel(double rate) {
    return (rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate)) + " req/s";
  }
}
