"""The /ops/ dashboard: its views (views.py, the page and the panel htmx polls), what the
panel shows at each poll (panels.py), the charts of a window's history drawn as SVG on the
server (series.py, charts.py), and the per-minute history they read, written by the
sweeper (history.py). Its templates are templates/ops/, its tag library ops_numbers in the
app's templatetags/, where Django looks for it."""
