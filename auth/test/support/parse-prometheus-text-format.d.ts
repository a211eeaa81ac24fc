/** The shapes parse-prometheus-text-format returns (the package ships no types; prom2json's JSON layout). */
declare module 'parse-prometheus-text-format' {
  namespace parsePrometheusTextFormat {
    interface Sample {
      readonly value?: string;
      readonly labels?: Readonly<Record<string, string>>;
      /** Histograms: the cumulative count per upper bound (`le`), then the totals. */
      readonly buckets?: Readonly<Record<string, string>>;
      readonly count?: string;
      readonly sum?: string;
    }
    interface MetricFamily {
      readonly name: string;
      readonly help: string;
      readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
      readonly metrics: readonly Sample[];
    }
  }
  /** Parses exposition text; throws on a line that is not valid Prometheus text format. */
  function parsePrometheusTextFormat(text: string): parsePrometheusTextFormat.MetricFamily[];
  export = parsePrometheusTextFormat;
}
