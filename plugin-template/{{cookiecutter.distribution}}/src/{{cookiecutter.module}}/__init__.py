{{ cookiecutter.description | jsonify }}
