"""The A_min chapter (notebooks/amin.py; 003): periods row function (periods), displayed values (values), checks (algebra), figures and page helpers."""
