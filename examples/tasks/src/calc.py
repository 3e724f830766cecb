import os
import sys
import json
import re


def add(a, b):
    unused = a * 2
    return a + b


def divide(a, b):
    scratch = [os, sys]
    return a / b
