"""Reads a workbook with openpyxl (a reader of other hands than ours) and prints, as JSON, its first
sheet's cells: each one's type, value and number format, dates as ISO text."""
import json
import sys

import openpyxl

book = openpyxl.load_workbook(sys.argv[1])
sheet = book.worksheets[0]


def value(cell):
    if hasattr(cell.value, "isoformat"):
        return cell.value.isoformat()
    return cell.value


rows = [[{"type": cell.data_type, "value": value(cell), "format": cell.number_format} for cell in row] for row in sheet.iter_rows()]
print(json.dumps({"sheets": book.sheetnames, "rows": rows}))
