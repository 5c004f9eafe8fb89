"""The teaching layer: exercises, their topic sets, the exercise panels and the facilitators'
solutions.
"""
