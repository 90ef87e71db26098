"""The parts of scripts/report-html.py, the HTML page of acclab report: values.py (numbers and
text as the page shows them), steps.py (the results as steps, by workload), charts.py (SVG and
the ladder chart), roofline.py (roofs, ceilings, the roofline chart and its caption), page.py
(the sections and the page)."""
